package dev.ratelimit.spring.ai;

import dev.ratelimit.Limit;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.internal.LogText;
import dev.ratelimit.internal.SpecText;
import dev.ratelimit.limiter.NamedLimiter;
import dev.ratelimit.limiter.PendingCharge;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.spring.RateLimitCountException;
import dev.ratelimit.http.builder.MissingKey;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.core.Ordered;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * An LLM token budget on a Spring AI {@code ChatClient} (docs/design.md §7.6): before the model
 * is called, an estimate of the call's tokens is charged to the caller's key on a named limit
 * ({@link dev.ratelimit.limiter.NamedLimiter#charge}); a denial throws {@link RateLimitExceededException} (429 in a Spring
 * MVC or WebFlux application) and the model is not called. Once the model has answered, the
 * charge is settled with the answer's total tokens ({@link PendingCharge#settleActual}): what the
 * estimate took beyond them is given back, what the call used beyond the estimate is taken into
 * debt, so that the next calls wait.
 *
 * <ul>
 *   <li>A stream is charged and settled without blocking ({@code chargeAsync},
 *       {@code settleActualAsync}), when it completes, with the last chunk that carries usage.
 *   <li>A call that fails, a stream that errors or is cancelled midway, and an answer without
 *       usage (or with a total of 0 or less) stay charged at the estimate: the model may have
 *       worked, and a caller must not get tokens free by cutting a stream short.
 * </ul>
 *
 * <pre>{@code
 * ChatClient chat = ChatClient.builder(model)
 *     .defaultAdvisors(RateLimitAdvisor.builder(limiter, "llm-tokens").build())
 *     .build();
 * }</pre>
 *
 * <p>Its order, {@link #DEFAULT_ORDER}, puts it before chat memory and tool calling, so that one
 * charge covers every model round of a call (the tool-calling advisor reports their sum). An
 * advisor that can answer without the model (a cache) spares the caller's budget only when it is
 * ordered before this one.
 */
public final class RateLimitAdvisor implements CallAdvisor, StreamAdvisor {
  /**
   * Before Spring AI's chat memory ({@code HIGHEST_PRECEDENCE + 200}) and tool calling
   * ({@code HIGHEST_PRECEDENCE + 300}) advisors, and before advisors of the default order 0.
   */
  public static final int DEFAULT_ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

  private static final Log LOG = LogFactory.getLog(RateLimitAdvisor.class);

  private final RateLimiter limiter;
  private final NamedLimiter budget;
  private final String limit;
  private final Function<ChatCall, String> key;
  private final ToDoubleFunction<ChatCall> estimate;
  private final MissingKey missingKey;
  private final int order;
  private final AtomicBoolean noUsageLogged = new AtomicBoolean();
  private final AtomicBoolean settleFailureLogged = new AtomicBoolean();

  private RateLimitAdvisor(Builder builder) {
    this.limiter = builder.limiter;
    this.budget = builder.limiter.named(builder.limit);
    this.limit = builder.limit;
    this.key = builder.key;
    this.estimate = builder.estimate;
    this.missingKey = builder.missingKey;
    this.order = builder.order;
  }

  /**
   * An advisor charging {@code limit}, a limit of {@code limiter}, per authenticated user, by the
   * default estimate ({@link ChatCall#defaultEstimate()}).
   */
  public static Builder builder(RateLimiter limiter, String limit) {
    return new Builder(limiter, limit);
  }

  @Override
  public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
    Spend spend = spend(new ChatCall(request.prompt(), request.context(), CallerName.ofThread()));
    if (spend == null) {
      return chain.nextCall(request);
    }
    PendingCharge charge = admitted(budget.charge(spend.key(), spend.estimate()));
    // a model that throws leaves the charge open: at its estimate, as it may have worked
    ChatClientResponse response = chain.nextCall(request);
    long tokens = TokenUsage.total(response);
    if (tokens == TokenUsage.NONE) {
      noUsage(charge);
    } else {
      try {
        charge.settleActual(tokens);
      } catch (RuntimeException e) {
        settleFailed(e);
      }
    }
    return response;
  }

  @Override
  public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
    return CallerName.ofSubscriber()
        .map(name -> Optional.ofNullable(spend(new ChatCall(request.prompt(), request.context(), name.orElse(null)))))
        .flatMapMany(spend -> spend.isEmpty() ? chain.nextStream(request)
            : Mono.fromCompletionStage(() -> budget.chargeAsync(spend.get().key(), spend.get().estimate()))
                .flatMapMany(charge -> settledOnCompletion(chain.nextStream(request), admitted(charge))));
  }

  /** Settles when the stream completes; an error or a cancel leaves the charge at its estimate. */
  private Flux<ChatClientResponse> settledOnCompletion(Flux<ChatClientResponse> answer, PendingCharge charge) {
    TokenUsage.Last usage = new TokenUsage.Last();
    return answer.doOnNext(usage::see).doOnComplete(() -> {
      long tokens = usage.total();
      if (tokens == TokenUsage.NONE) {
        noUsage(charge);
        return;
      }
      try {
        charge.settleActualAsync(tokens).whenComplete((settled, failure) -> {
          if (failure != null) {
            settleFailed(failure);
          }
        });
      } catch (RuntimeException e) {
        settleFailed(e);
      }
    });
  }

  /** The key and the estimate of a call; {@code null} when it is not limited (no key, {@code skip}). */
  private Spend spend(ChatCall call) {
    String callKey = key.apply(call);
    if (callKey == null) {
      switch (missingKey) {
        case GLOBAL -> callKey = "";
        case SKIP -> {
          return null;
        }
        case DENY -> throw new MissingKeyException(limit);
      }
    }
    // tokens are whole: rounding up also keeps a tiny fraction from being a count too small to charge
    double tokens = Math.ceil(estimate.applyAsDouble(call));
    Limit current = limiter.limits().get(limit);
    double largest = current == null ? Double.POSITIVE_INFINITY : current.largestCount();
    if (!(tokens >= 0) || tokens > largest) {
      throw new RateLimitCountException(limit, tokens, largest, "The estimate of a chat call on rate limit '" + limit
          + "' was " + SpecText.message(tokens) + " tokens, but it must be a finite number from 0 to "
          + SpecText.message(largest) + ", the most the limit can ever admit");
    }
    return new Spend(callKey, tokens);
  }

  private PendingCharge admitted(PendingCharge charge) {
    if (!charge.allowed()) {
      throw new RateLimitExceededException(limit, charge.decision());
    }
    return charge;
  }

  /** Keeps the estimate; the first time, says so: the provider's usage reporting may be off. */
  private void noUsage(PendingCharge charge) {
    charge.settle(true);
    if (noUsageLogged.compareAndSet(false, true)) {
      LOG.warn("A chat answer reported no token usage (none, or a total of 0 or less): rate limit '" + limit
          + "' keeps each such call's estimate (logged once)");
    }
  }

  /** The store did not take the settlement: the charge stays at its estimate, and the answer goes out. */
  private void settleFailed(Throwable failure) {
    if (settleFailureLogged.compareAndSet(false, true)) {
      LOG.warn("Rate limit '" + limit + "' could not settle a chat call with its tokens ("
          + LogText.quoted(String.valueOf(failure.getMessage())) + "): it stays at its estimate (logged once)");
    }
  }

  @Override
  public String getName() {
    return "RateLimitAdvisor[" + limit + "]";
  }

  @Override
  public int getOrder() {
    return order;
  }

  private record Spend(String key, double estimate) {}

  /** The advisor's settings; only the limiter and the limit are required. */
  public static final class Builder {
    private final RateLimiter limiter;
    private final String limit;
    private Function<ChatCall, String> key = ChatCall::principal;
    private ToDoubleFunction<ChatCall> estimate = ChatCall::defaultEstimate;
    private MissingKey missingKey = MissingKey.GLOBAL;
    private int order = DEFAULT_ORDER;

    private Builder(RateLimiter limiter, String limit) {
      this.limiter = Objects.requireNonNull(limiter, "limiter");
      this.limit = Objects.requireNonNull(limit, "limit");
    }

    /** The call's key on the limit; {@code null} is a missing key. Default: the authenticated user's name. */
    public Builder key(Function<ChatCall, String> key) {
      this.key = Objects.requireNonNull(key, "key");
      return this;
    }

    /**
     * The tokens charged before the model runs, rounded up to whole tokens; a value that is not
     * a finite number from 0 to what the limit can ever admit is a {@link RateLimitCountException}
     * (400 in a Spring MVC application) and the model is not called. Default:
     * {@link ChatCall#defaultEstimate()}.
     */
    public Builder estimate(ToDoubleFunction<ChatCall> estimate) {
      this.estimate = Objects.requireNonNull(estimate, "estimate");
      return this;
    }

    /**
     * A call without a key (nobody authenticated, with the default key): {@code GLOBAL} (the
     * default) charges the limit's global key, which every such call shares; {@code SKIP} leaves
     * it unlimited; {@code DENY} refuses it with {@link MissingKeyException} before the model runs.
     */
    public Builder missingKey(MissingKey missingKey) {
      this.missingKey = Objects.requireNonNull(missingKey, "missingKey");
      return this;
    }

    /** The advisor's order; default {@link #DEFAULT_ORDER}. */
    public Builder order(int order) {
      this.order = order;
      return this;
    }

    /** @throws IllegalArgumentException when the limiter has no limit of that name, naming the ones it has */
    public RateLimitAdvisor build() {
      if (!limiter.limits().containsKey(limit)) {
        throw new IllegalArgumentException("unknown limit '" + limit + "'; the limits: "
            + String.join(", ", limiter.limits().keySet()));
      }
      return new RateLimitAdvisor(this);
    }
  }
}

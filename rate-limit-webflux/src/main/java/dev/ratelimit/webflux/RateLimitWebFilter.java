package dev.ratelimit.webflux;

import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.http.Charges;
import dev.ratelimit.http.CostHeader;
import dev.ratelimit.http.Keys;
import dev.ratelimit.http.Problem;
import dev.ratelimit.http.Refusals;
import dev.ratelimit.http.RequestCondition;
import dev.ratelimit.http.RequestPlan;
import dev.ratelimit.http.Rule;
import dev.ratelimit.http.RuleOptions;
import dev.ratelimit.http.RuleSettings;
import dev.ratelimit.http.RuleSetup;
import dev.ratelimit.http.UrlPattern;
import dev.ratelimit.http.builder.FilterBuilder;
import dev.ratelimit.internal.Futures;
import dev.ratelimit.limiter.RateLimiter;
import java.security.Principal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import reactor.core.publisher.Mono;

/**
 * Rate limits WebFlux requests with the servlet filter's contract (docs/design.md §6): each
 * request matching a rule spends from its key's bucket, once; every limited response carries the
 * rate limit headers, and a denied request gets 429 with {@code Retry-After} and the problem+json
 * body. Rules match Spring path patterns ({@code /api/**}); keys are {@code ip},
 * {@code header:NAME}, {@code principal} (the reactive security context's user),
 * {@code param:NAME} (query, or a form body, which WebFlux keeps for the handler), their options
 * ({@code |lower|trim|nfkc}), or SpEL {@code #{...}} over {@code #exchange} and {@code #request}.
 *
 * <p>The decision is the limiter's asynchronous call: with a remote store (Redis) the event loop
 * is never blocked, and the request goes on when the store answers.
 *
 * <pre>{@code
 * @Bean
 * RateLimitWebFilter rateLimitWebFilter(RateLimiter limiter) {
 *   return RateLimitWebFilter.builder().limiter(limiter)
 *       .rule("/api/**", "api", "ip", 1)
 *       .rule("/login", "login", "param:user|lower|trim", 1)
 *       .build();
 * }
 * }</pre>
 * @since 1.0
 */
public final class RateLimitWebFilter implements WebFilter, Ordered {
  /**
   * After Spring Security's filter chain (-100), so that {@code principal} keys see the user, and
   * before the application's own filters.
   */
  public static final int ORDER = -50;

  private final RuleSettings settings;
  private final boolean readsPrincipal;
  private final boolean readsForm;
  private final int order;

  private RateLimitWebFilter(RuleSettings settings, int order) {
    this.settings = settings;
    this.order = order;
    this.readsPrincipal = settings.rules().all().stream().anyMatch(RateLimitWebFilter::readsPrincipal);
    this.readsForm = settings.rules().all().stream().anyMatch(rule -> Keys.readsParam(rule.key()));
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public int getOrder() {
    return order;
  }

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    Rule[] matched = settings.rules().matching(new ExchangeRequest(exchange, null, null));
    if (matched.length == 0) {
      return chain.filter(exchange);
    }
    boolean principal = false;
    boolean form = false;
    for (Rule rule : matched) {
      principal |= readsPrincipal && readsPrincipal(rule);
      form |= readsForm && Keys.readsParam(rule.key());
    }
    if (!principal && !form) {
      return decide(new ExchangeRequest(exchange, null, null), matched, chain);
    }
    // what WebFlux gives only asynchronously is read first, so that the keys never block
    Mono<Optional<Principal>> user = principal
        ? exchange.getPrincipal().map(Optional::of).defaultIfEmpty(Optional.empty())
        : Mono.just(Optional.empty());
    Mono<Optional<MultiValueMap<String, String>>> fields = form
        ? exchange.getFormData().map(Optional::of).defaultIfEmpty(Optional.empty())
        : Mono.just(Optional.empty());
    return Mono.zip(user, fields).flatMap(read ->
        decide(new ExchangeRequest(exchange, read.getT1().orElse(null), read.getT2().orElse(null)), matched, chain));
  }

  /**
   * Whether the rule may need the user: a {@code principal} key, or a plan or condition (which
   * may read {@code #principal}; they are the application's code, so it is read for them).
   */
  private static boolean readsPrincipal(Rule rule) {
    return Keys.readsPrincipal(rule.key()) || rule.plan() != null || rule.condition() != null;
  }

  private Mono<Void> decide(ExchangeRequest request, Rule[] matched, WebFilterChain chain) {
    ServerWebExchange exchange = request.exchange();
    Charges charges = Charges.of(matched, request, settings.missingKey());
    ExchangeResponse response = new ExchangeResponse(exchange.getResponse());
    if (charges.missingKey() != null) {
      return refuse(charges.missingKey(), exchange, response);
    }
    if (charges.isEmpty()) {
      return chain.filter(exchange);
    }
    return Mono.defer(() -> {
      CompletableFuture<Charges.Verdict> spent =
          charges.spendAsync(settings.limiter(), settings.headers(), response).toCompletableFuture();
      // a cancel leaves the decision to arrive (suppressCancel): the store charges anyway, and
      // the verdict's settlement is what refunds it
      return Mono.fromFuture(spent, true)
          .flatMap(verdict -> verdict.allowed() ? pass(exchange, chain, verdict.settlement())
              : refuse(Refusals.rateLimited(response, verdict.limit(), verdict.retryAfterMillis()), exchange, response))
          .onErrorResume(RateLimitWebFilter::storeUnavailable,
              // failure=closed: neither admitted nor counted
              e -> refuse(Refusals.storeUnavailable(response, charges.closedLimit()), exchange, response))
          // too many decisions waiting for the store: load, answered 503 with Retry-After, never a 500
          .onErrorResume(RateLimitWebFilter::busy,
              e -> refuse(Refusals.busy(response, matched[0].limit()), exchange, response))
          .doOnCancel(() -> spent.thenAccept(RateLimitWebFilter::cancelled));
    });
  }

  /**
   * Passes the request on; the charges of {@code charge-on} and {@code cost-header} rules are
   * settled by the response as it is committed (also an error handler's: every response is
   * committed, by the handler or by WebFlux at the end), once: its status, and the cost its cost
   * headers state, read then and taken out of the response unless passed, before any header is
   * written. Subscribing to the chain starts the handler: an exchange cancelled before that (the
   * client went away while the limit was decided) is refunded and never runs it; one cancelled
   * after, before its response was committed, is charged unless the rule refunds cancelled
   * requests (docs/design.md §2.7, §6.8).
   */
  private static Mono<Void> pass(ServerWebExchange exchange, WebFilterChain chain, Charges.Settlement settlement) {
    if (settlement == null) {
      return chain.filter(exchange);
    }
    ServerHttpResponse response = exchange.getResponse();
    List<CostHeader> costHeaders = settlement.costHeaders();
    response.beforeCommit(() -> {
      HttpStatusCode status = response.getStatusCode();
      int code = status == null ? HttpStatus.OK.value() : status.value();
      if (costHeaders.isEmpty()) {
        settlement.settle(code);
        return Mono.empty();
      }
      HttpHeaders headers = response.getHeaders();
      Map<String, List<String>> stated = new HashMap<>();
      for (CostHeader header : costHeaders) {
        // through SpringHeaders: HttpHeaders.get(String) and remove(String) are Framework 7's only
        stated.put(header.name(), List.copyOf(SpringHeaders.values(headers, header.name())));
        if (!header.passed()) {
          SpringHeaders.remove(headers, header.name());
        }
      }
      settlement.settle(code, name -> stated.getOrDefault(name, List.of()));
      return Mono.empty();
    });
    return Mono.defer(() -> settlement.start() ? chain.filter(exchange) : Mono.empty());
  }

  /** The exchange was cancelled: its charge-on charges are settled as a request without a status. */
  private static void cancelled(Charges.Verdict verdict) {
    if (verdict.settlement() != null) {
      verdict.settlement().cancel();
    }
  }

  private static boolean busy(Throwable failure) {
    return Futures.cause(failure) instanceof RejectedExecutionException;
  }

  private static boolean storeUnavailable(Throwable failure) {
    return Futures.cause(failure) instanceof StoreUnavailableException;
  }

  private static Mono<Void> refuse(Problem problem, ServerWebExchange exchange, ExchangeResponse response) {
    problem.write(response, exchange.getRequest().getPath().value());
    return response.write();
  }

  /** Closes the limiter when this filter made it (its limits given to the builder). */
  public void close() {
    if (settings.ownsLimiter()) {
      settings.limiter().close();
    }
  }

  /**
   * Configures a filter. Either give a {@link RateLimiter}, or its limits (and clock, store,
   * store failure policy) here; then the rules, which {@link #build()} checks. The methods
   * shared with the servlet filter's builder are {@link FilterBuilder}'s.
   */
  public static final class Builder extends FilterBuilder<Builder, RateLimitWebFilter> {
    private final RuleSetup setup;
    private final PathPatternParser parser = PathPatternParser.defaultInstance;
    private BeanFactory beanFactory;
    private int order = ORDER;

    private Builder() {
      this(new RuleSetup());
    }

    private Builder(RuleSetup setup) {
      super(setup);
      this.setup = setup;
      setup.customKeys(new Keys.Custom(SpelKey::isSpel, key -> SpelKey.parse(key, beanFactory),
          "a SpEL expression #{...} over #exchange and #request"));
    }

    /** Requests matching the Spring path pattern spend 1 unit of the limit, keyed by client address. */
    public Builder rule(String pattern, String limit) {
      return rule(pattern, limit, "ip", 1);
    }

    /**
     * Requests whose path within the application matches the Spring path pattern
     * ({@code /api/**}) spend {@code cost} units of the limit.
     *
     * @param key {@code ip}, {@code header:NAME}, {@code principal}, {@code param:NAME}, any but
     *     {@code ip} with options ({@code param:user|lower|trim}), or SpEL {@code #{...}}
     * @throws IllegalArgumentException for a pattern Spring can't parse
     */
    public Builder rule(String pattern, String limit, String key, double cost) {
      PathPattern parsed = parser.parse(Objects.requireNonNull(pattern, "pattern"));
      setup.rule(UrlPattern.custom(pattern, path -> parsed.matches(PathContainer.parsePath(path))), limit, key, cost);
      return this;
    }

    /**
     * The rule added last charges each request under the plan this names ({@code null}, or a
     * plan its limit lacks: the default plan). It runs on the event loop and must not block;
     * the request it is given has the user ({@code principal()}, {@code user()}) read: take the
     * plan from who the caller is, never from a header, which the client writes (docs/design.md §6.1).
     *
     * @throws IllegalStateException before any rule
     */
    public Builder plan(RequestPlan plan) {
      setup.lastRule(new RuleOptions(null, null, Objects.requireNonNull(plan, "plan"), null));
      return this;
    }

    /**
     * The rule added last applies only to requests this accepts: any other is neither charged
     * nor shown the rule's headers. It runs on the event loop and must not block. Decide it on
     * facts a client cannot forge (the user, the client address), never a header (docs/design.md §6.1).
     *
     * @throws IllegalStateException before any rule
     */
    public Builder condition(RequestCondition condition) {
      setup.lastRule(new RuleOptions(null, null, null, Objects.requireNonNull(condition, "condition")));
      return this;
    }

    /** Where SpEL keys find beans ({@code @name}). */
    public Builder beanFactory(BeanFactory beanFactory) {
      this.beanFactory = beanFactory;
      return this;
    }

    /** What a rule does with a request without its key: {@code global} (default), {@code skip} or {@code deny}. */
    public Builder missingKey(String policy) {
      setup.missingKey(dev.ratelimit.http.builder.MissingKey.parse(Objects.requireNonNull(policy, "policy")));
      return this;
    }

    /** The filter's place among the application's WebFilters; default {@link #ORDER}. */
    public Builder order(int order) {
      this.order = order;
      return this;
    }

    @Override
    public RateLimitWebFilter build() {
      return new RateLimitWebFilter(setup.settle(), order);
    }
  }
}

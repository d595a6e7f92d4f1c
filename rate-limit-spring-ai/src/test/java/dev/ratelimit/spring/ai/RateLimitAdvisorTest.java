package dev.ratelimit.spring.ai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.ManualClock;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.contract.Concurrently;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.spring.RateLimitCountException;
import dev.ratelimit.http.builder.MissingKey;
import dev.ratelimit.store.InMemoryStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.metadata.DefaultUsage;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.tool.function.FunctionToolCallback;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * The advisor on a real {@link ChatClient} over a scripted model, with Spring AI's own advisors
 * around it (tool calling): what the caller's budget loses, call by call. Time stands still, so
 * nothing refills while a test runs.
 */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitAdvisorTest {
  private static final String PROMPT = "hello world!"; // 12 characters: an estimate of 3 tokens

  private final ManualClock clock = new ManualClock(1_700_000_000_000L);
  private final RateLimiter limiter = RateLimiter.builder().clock(clock).store(new InMemoryStore(clock))
      .limit("llm-tokens", "token-bucket rate=1000 period=1h")
      .limit("small", "token-bucket rate=100 period=1h")
      .build();
  private final ScriptedChatModel model = new ScriptedChatModel();

  @AfterEach
  void nobodyAuthenticated() {
    SecurityContextHolder.clearContext();
  }

  private ChatClient chat(RateLimitAdvisor advisor) {
    return ChatClient.builder(model)
        .defaultTools(FunctionToolCallback.builder(ScriptedChatModel.TOOL, () -> "noon")
            .description("the time").build())
        .defaultAdvisors(advisor)
        .build();
  }

  private ChatClient chat(String limit) {
    return chat(RateLimitAdvisor.builder(limiter, limit).build());
  }

  private static void as(String user) {
    SecurityContextHolder.getContext().setAuthentication(
        UsernamePasswordAuthenticationToken.authenticated(user, null, List.of()));
  }

  private double remaining(String limit, String key) {
    return limiter.named(limit).check(key, 0).remaining();
  }

  @Test
  void call_costsTheUserTheTotalTokensTheModelReported() {
    as("ann");
    assertThat(chat("llm-tokens").prompt().user(PROMPT).call().content()).isEqualTo("echo: 12 characters");

    assertThat(remaining("llm-tokens", "ann")).isEqualTo(1000 - 37);
    assertThat(remaining("llm-tokens", "bob")).isEqualTo(1000);
    assertThat(model.calls()).isEqualTo(1);
  }

  @Test
  void call_chargesTheEstimateBeforeTheModelRuns() {
    as("ann");
    double[] seenByTheModel = new double[1];
    CallAdvisor inner = new CallAdvisor() {
      @Override
      public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
        seenByTheModel[0] = remaining("llm-tokens", "ann");
        return chain.nextCall(request);
      }

      @Override
      public String getName() {
        return "inner";
      }

      @Override
      public int getOrder() {
        return 0;
      }
    };

    chat("llm-tokens").prompt().user(PROMPT).options(ChatOptions.builder().maxTokens(200)).advisors(inner).call()
        .content();

    assertThat(seenByTheModel[0]).isEqualTo(1000 - (3 + 200)); // characters / 4, plus maxTokens
    assertThat(remaining("llm-tokens", "ann")).isEqualTo(1000 - 37);
  }

  @Test
  void call_whenTheBudgetIsSpent_isDeniedAndTheModelIsNotCalled() {
    as("ann");
    model.reports(ScriptedChatModel.usage(100));
    ChatClient chat = chat("small");
    chat.prompt().user(PROMPT).call().content();

    assertThatThrownBy(() -> chat.prompt().user(PROMPT).call().content())
        .isInstanceOfSatisfying(RateLimitExceededException.class, denied -> {
          assertThat(denied.limitName()).isEqualTo("small");
          assertThat(denied.decision().retryAfterMillis()).isEqualTo(Duration.ofHours(1).toMillis() * 3 / 100);
        });
    assertThat(model.calls()).isEqualTo(1);
    assertThat(remaining("small", "ann")).isZero();
  }

  @Test
  void call_usingMoreThanItsEstimate_leavesTheKeyInDebt_andTheNextCallWaitsItOut() {
    as("ann");
    model.reports(ScriptedChatModel.usage(150));
    ChatClient chat = chat("small");
    chat.prompt().user(PROMPT).call().content();

    assertThat(remaining("small", "ann")).isEqualTo(-50);
    assertThatThrownBy(() -> chat.prompt().user(PROMPT).call().content())
        .isInstanceOfSatisfying(RateLimitExceededException.class, denied ->
            assertThat(denied.decision().retryAfterMillis()).isEqualTo(Duration.ofHours(1).toMillis() * 53 / 100));
    clock.advance(Duration.ofMinutes(36)); // 60 tokens back: 10 left
    chat.prompt().user(PROMPT).call().content();
    assertThat(model.calls()).isEqualTo(2);
  }

  @Test
  void call_hugeUsage_takesNoMoreThanTheDebtBound() {
    as("ann");
    model.reports(new DefaultUsage(0, Integer.MAX_VALUE, Integer.MAX_VALUE));
    chat("llm-tokens").prompt().user(PROMPT).call().content();

    assertThat(remaining("llm-tokens", "ann")).isEqualTo(-1000); // one capacity of debt (docs/design.md §2.4)
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "zero", "negative", "overflowing"})
  void call_withoutAUsableUsage_keepsTheEstimate(String usage, CapturedOutput output) {
    as("ann");
    model.reports(switch (usage) {
      case "none" -> null;
      case "zero" -> new DefaultUsage(0, 0, 0);
      case "negative" -> new DefaultUsage(5, 5, -500);
      default -> new DefaultUsage(Integer.MAX_VALUE, Integer.MAX_VALUE, null); // the sum wraps negative
    });
    ChatClient chat = chat("llm-tokens");
    chat.prompt().user(PROMPT).call().content();
    chat.prompt().user(PROMPT).call().content();

    assertThat(remaining("llm-tokens", "ann")).isEqualTo(1000 - 2 * 3);
    assertThat(output.getOut().split("reported no token usage", -1)).hasSize(2); // logged once
  }

  @Test
  void call_whenTheModelFails_keepsTheEstimate() {
    as("ann");
    ChatClient chat = ChatClient.builder(new FailingModel()).defaultAdvisors(
        RateLimitAdvisor.builder(limiter, "llm-tokens").build()).build();

    assertThatThrownBy(() -> chat.prompt().user(PROMPT).call().content()).hasMessageContaining("provider down");
    assertThat(remaining("llm-tokens", "ann")).isEqualTo(1000 - 3);
  }

  @Test
  void call_withAnEstimateTheLimitCanNeverAdmit_isRefusedAsABadCount_andTheModelIsNotCalled() {
    as("ann");
    String megabytes = "x".repeat(4 << 20);

    assertThatThrownBy(() -> chat("llm-tokens").prompt().user(megabytes).call().content())
        .isInstanceOfSatisfying(RateLimitCountException.class, bad -> {
          assertThat(bad.limitName()).isEqualTo("llm-tokens");
          assertThat(bad.count()).isEqualTo(1 << 20);
          assertThat(bad.largestCount()).isEqualTo(1000);
          assertThat(bad.detail()).isEqualTo(
              "Count 1048576 for rate limit 'llm-tokens' must be a finite number from 0 to 1000");
        });
    assertThat(model.calls()).isZero();
    assertThat(remaining("llm-tokens", "ann")).isEqualTo(1000);
  }

  @ParameterizedTest
  @ValueSource(doubles = {-1, Double.NaN, Double.POSITIVE_INFINITY, 1e308})
  void call_withAnEstimateThatIsNoCount_isRefused(double estimate) {
    as("ann");
    ChatClient chat = chat(RateLimitAdvisor.builder(limiter, "llm-tokens").estimate(call -> estimate).build());

    assertThatThrownBy(() -> chat.prompt().user(PROMPT).call().content()).isInstanceOf(RateLimitCountException.class);
    assertThat(model.calls()).isZero();
  }

  @Test
  void call_withAFractionalEstimate_chargesWholeTokens() {
    as("ann");
    model.reports(null);
    ChatClient chat = chat(RateLimitAdvisor.builder(limiter, "llm-tokens").estimate(call -> 1e-13).build());
    chat.prompt().user(PROMPT).call().content();

    assertThat(remaining("llm-tokens", "ann")).isEqualTo(999);
  }

  @Test
  void call_byNobody_sharesTheGlobalKeyByDefault() {
    chat("llm-tokens").prompt().user(PROMPT).call().content();

    assertThat(remaining("llm-tokens", "")).isEqualTo(1000 - 37);
  }

  @Test
  void call_byNobody_underSkip_isNotLimited() {
    chat(RateLimitAdvisor.builder(limiter, "llm-tokens").missingKey(MissingKey.SKIP).build())
        .prompt().user(PROMPT).call().content();

    assertThat(remaining("llm-tokens", "")).isEqualTo(1000);
    assertThat(model.calls()).isEqualTo(1);
  }

  @Test
  void call_byNobody_underDeny_isRefusedBeforeTheModel() {
    ChatClient chat = chat(RateLimitAdvisor.builder(limiter, "llm-tokens").missingKey(MissingKey.DENY).build());

    assertThatThrownBy(() -> chat.prompt().user(PROMPT).call().content())
        .isInstanceOf(MissingKeyException.class)
        .hasMessage("Rate limit 'llm-tokens' needs a key for the chat call, and the call has none");
    assertThat(model.calls()).isZero();
  }

  @Test
  void call_keyFromTheAdvisorContext() {
    ChatClient chat = chat(RateLimitAdvisor.builder(limiter, "llm-tokens")
        .key(call -> (String) call.context().get("tenant")).build());
    chat.prompt().user(PROMPT).advisors(a -> a.param("tenant", "acme")).call().content();

    assertThat(remaining("llm-tokens", "acme")).isEqualTo(1000 - 37);
  }

  @Test
  void call_withAToolRound_isChargedOnce_forEveryRound() {
    as("ann");
    model.callsToolFirst(ScriptedChatModel.usage(20));
    AtomicInteger charges = new AtomicInteger();
    RateLimitAdvisor advisor = RateLimitAdvisor.builder(limiter, "llm-tokens")
        .estimate(call -> {
          charges.incrementAndGet();
          return call.defaultEstimate();
        }).build();

    assertThat(chat(advisor).prompt().user(PROMPT).call().content()).isEqualTo("echo: 16 characters"); // + "noon"
    assertThat(model.calls()).isEqualTo(2);
    assertThat(charges).hasValue(1);
    assertThat(remaining("llm-tokens", "ann")).isEqualTo(1000 - (20 + 37));
  }

  @Test
  void build_refusesAnUnknownLimit() {
    assertThatThrownBy(() -> RateLimitAdvisor.builder(limiter, "tokens").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown limit 'tokens'; the limits: llm-tokens, small");
  }

  @Test
  void stream_settlesAtCompletion_withTheLastChunkThatCarriesUsage() {
    as("ann");
    model.usageOnEveryChunk(); // running totals: 12, 24, 37; summing them would cost 73

    List<String> chunks = chat("llm-tokens").prompt().user(PROMPT).stream().content().collectList().block();

    assertThat(chunks).containsExactly("Hel", "lo", "!");
    assertThat(remaining("llm-tokens", "ann")).isEqualTo(1000 - 37);
  }

  @Test
  void stream_whileItRuns_holdsTheEstimate() throws Exception {
    as("ann");
    model.streams(List.of("a", "b"), ScriptedChatModel.End.HANG).usageOnEveryChunk(); // "a" reports 18 so far
    var running = chat("llm-tokens").prompt().user(PROMPT).stream().content().subscribe();
    try {
      assertThat(model.firstChunkSent().await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(remaining("llm-tokens", "ann")).isEqualTo(1000 - 3);
    } finally {
      running.dispose();
    }
  }

  @Test
  void stream_cancelledMidway_keepsTheEstimate() throws Exception {
    as("ann");
    model.streams(List.of("a", "b"), ScriptedChatModel.End.HANG).usageOnEveryChunk(); // "a" reports 18 so far

    assertThat(chat("llm-tokens").prompt().user(PROMPT).stream().content().take(1).collectList().block())
        .containsExactly("a");
    assertThat(model.cancelled().await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(remaining("llm-tokens", "ann")).isEqualTo(1000 - 3);
  }

  @Test
  void stream_failingMidway_keepsTheEstimate() {
    as("ann");
    model.streams(List.of("a", "b"), ScriptedChatModel.End.FAIL).usageOnEveryChunk();

    assertThatThrownBy(() -> chat("llm-tokens").prompt().user(PROMPT).stream().content().collectList().block())
        .hasMessageContaining("the model failed midway");
    assertThat(remaining("llm-tokens", "ann")).isEqualTo(1000 - 3);
  }

  @Test
  void stream_withoutUsage_keepsTheEstimate() {
    as("ann");
    model.reports(null);
    chat("llm-tokens").prompt().user(PROMPT).stream().content().collectList().block();

    assertThat(remaining("llm-tokens", "ann")).isEqualTo(1000 - 3);
  }

  @Test
  void stream_whenTheBudgetIsSpent_failsAndTheModelNeverStreams() {
    as("ann");
    model.reports(ScriptedChatModel.usage(100));
    ChatClient chat = chat("small");
    chat.prompt().user(PROMPT).stream().content().collectList().block();

    assertThatThrownBy(() -> chat.prompt().user(PROMPT).stream().content().collectList().block())
        .isInstanceOf(RateLimitExceededException.class);
    assertThat(model.streams()).isEqualTo(1);
  }

  @Test
  void stream_withAnEstimateTheLimitCanNeverAdmit_failsBeforeTheModelStreams() {
    as("ann");

    assertThatThrownBy(() -> chat("llm-tokens").prompt().user("x".repeat(4 << 20)).stream().content().collectList()
        .block()).isInstanceOf(RateLimitCountException.class);
    assertThat(model.streams()).isZero();
    assertThat(remaining("llm-tokens", "ann")).isEqualTo(1000);
  }

  @Test
  void call_withAMegabyteKey_chargesThatKeyAlone() {
    String huge = "k".repeat(1 << 20); // the limiter keeps a digest of it, never the megabyte
    ChatClient chat = chat(RateLimitAdvisor.builder(limiter, "llm-tokens")
        .key(call -> (String) call.context().get("tenant")).build());
    chat.prompt().user(PROMPT).advisors(a -> a.param("tenant", huge)).call().content();

    assertThat(remaining("llm-tokens", huge)).isEqualTo(1000 - 37);
    assertThat(remaining("llm-tokens", "k".repeat((1 << 20) - 1))).isEqualTo(1000);
  }

  @Test
  void stream_readsTheUserFromTheReactorContext() {
    chat("llm-tokens").prompt().user(PROMPT).stream().content()
        .contextWrite(ReactiveSecurityContextHolder.withAuthentication(
            UsernamePasswordAuthenticationToken.authenticated("gina", null, List.of())))
        .collectList().block();

    assertThat(remaining("llm-tokens", "gina")).isEqualTo(1000 - 37);
    assertThat(remaining("llm-tokens", "")).isEqualTo(1000);
  }

  @Test
  void stream_withAToolRound_settlesWithEveryRound() {
    as("ann");
    model.callsToolFirst(ScriptedChatModel.usage(20));

    assertThat(String.join("", chat("llm-tokens").prompt().user(PROMPT).stream().content().collectList().block()))
        .isEqualTo("Hello!");
    assertThat(remaining("llm-tokens", "ann")).isEqualTo(1000 - (20 + 37));
  }

  @Test
  void concurrentCalls_costExactlyWhatTheModelReported() throws Exception {
    RateLimiter big = RateLimiter.builder().clock(clock).store(new InMemoryStore(clock))
        .limit("llm-tokens", "token-bucket rate=100000 period=1h").build();
    model.reports(ScriptedChatModel.usage(7));
    ChatClient chat = chat(RateLimitAdvisor.builder(big, "llm-tokens").key(call -> "team").build());

    Concurrently.run(16, () -> {
      for (int i = 0; i < 25; i++) {
        chat.prompt().user(PROMPT).call().content();
        chat.prompt().user(PROMPT).stream().content().collectList().block();
      }
      return null;
    });

    assertThat(big.named("llm-tokens").check("team", 0).remaining()).isEqualTo(100_000 - 16 * 25 * 2 * 7);
  }

  @Test
  void concurrentCalls_onASpentBudget_admitExactlyWhatItHolds_andTheModelSeesNoMore() throws Exception {
    model.reports(ScriptedChatModel.usage(10));
    ChatClient chat = chat(RateLimitAdvisor.builder(limiter, "llm-tokens").key(call -> "team")
        .estimate(call -> 10).build());
    AtomicInteger denied = new AtomicInteger();

    Concurrently.run(16, () -> {
      for (int i = 0; i < 10; i++) {
        try {
          if (i % 2 == 0) {
            chat.prompt().user(PROMPT).call().content();
          } else {
            chat.prompt().user(PROMPT).stream().content().collectList().block();
          }
        } catch (RateLimitExceededException e) {
          denied.incrementAndGet();
        }
      }
      return null;
    });

    assertThat(model.calls() + model.streams()).isEqualTo(100);
    assertThat(denied).hasValue(60);
    assertThat(remaining("llm-tokens", "team")).isZero();
  }

  /** A model whose provider is down. */
  private static final class FailingModel implements org.springframework.ai.chat.model.ChatModel {
    @Override
    public org.springframework.ai.chat.model.ChatResponse call(org.springframework.ai.chat.prompt.Prompt prompt) {
      throw new IllegalStateException("provider down");
    }
  }
}

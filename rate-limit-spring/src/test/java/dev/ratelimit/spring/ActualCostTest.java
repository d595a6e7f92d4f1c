package dev.ratelimit.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.Concurrently;
import dev.ratelimit.contract.LogLines;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.InMemoryStore;
import dev.ratelimit.store.RateLimitStore;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/**
 * {@code @RateLimited(actual = ...)} (docs/design.md §7.1): each call charged its {@code count},
 * an estimate, up front, then settled with what its result says it cost: a value, a
 * {@code CompletionStage}, a {@code Mono}, a {@code Flux} (its last element). The key's remaining
 * units, read with a check (which takes nothing), are exactly capacity − Σ actual costs. The
 * reactive and {@code CompletionStage} paths run on {@link AnswersLaterStore}, whose blocking
 * methods fail: a settlement that blocked would be lost, and the totals would be off. Time stands
 * still ({@link ManualClock}).
 */
class ActualCostTest {
  private static final Duration HANG = Duration.ofSeconds(30);
  private static final int CAPACITY = 1_000_000;

  private AnnotationConfigApplicationContext context;
  private Llm llm;
  private RateLimiter limiter;

  /** An answer and the tokens it used, as a model's client returns them. */
  public record Answer(String text, long tokens) {}

  /** A chunk of a streamed answer; the last one carries the tokens the whole answer used. */
  public record Chunk(String text, Long usage) {}

  /** A fake model: each method answers with the tokens the test tells it to. */
  public static class Llm {
    private final AtomicInteger runs = new AtomicInteger();

    public int runs() {
      return runs.get();
    }

    @RateLimited(name = "tokens", key = "#user", count = "100", actual = "#result.tokens()")
    public Answer complete(String user, long tokens) {
      runs.incrementAndGet();
      return new Answer("answer", tokens);
    }

    @RateLimited(name = "tokens", key = "#user", count = "100", actual = "#result.tokens()")
    public Answer fail(String user) {
      runs.incrementAndGet();
      throw new IllegalStateException("the model is down");
    }

    /** Whatever the test passes is the result, and the actual cost read from it as it is. */
    @RateLimited(name = "tokens", key = "#user", count = "100", actual = "#result")
    public Object raw(String user, Object result) {
      return result;
    }

    /** Refunded unless the answer says it was served; then settled with its tokens. */
    @RateLimited(name = "tokens", key = "#user", count = "100", chargeIf = "#exception != null or #result.tokens() > 0",
        actual = "#result.tokens()")
    public Answer served(String user, long tokens, boolean fail) {
      if (fail) {
        throw new IllegalStateException("failed");
      }
      return new Answer("served", tokens);
    }

    /** Two limits: the tokens settled with the actual count, the calls kept as charged. */
    @RateLimited(name = "tokens", key = "#user", count = "100", actual = "#result.tokens()")
    @RateLimited(name = "calls", key = "#user")
    public Answer counted(String user, long tokens) {
      return new Answer("counted", tokens);
    }

    @RateLimited(name = "tokens", key = "#user", count = "100", actual = "#result.tokens()")
    public CompletionStage<Answer> later(String user, CompletableFuture<Answer> answer) {
      runs.incrementAndGet();
      return answer;
    }

    /** Charged only when served, by outcome alone: the refund must not block the thread that completes the stage. */
    @RateLimited(name = "tokens", key = "#user", count = "100", chargeIf = "#result.tokens() > 0")
    public CompletionStage<Answer> laterIfServed(String user, CompletableFuture<Answer> answer) {
      runs.incrementAndGet();
      return answer;
    }

    @RateLimited(name = "tokens", key = "#user", count = "100", actual = "#result.tokens()")
    public Mono<Answer> mono(String user, long tokens) {
      return Mono.fromCallable(() -> {
        runs.incrementAndGet();
        return new Answer("mono", tokens);
      });
    }

    /** Streamed: the usage comes with the last chunk; an empty stream used nothing. */
    @RateLimited(name = "tokens", key = "#user", count = "100", actual = "#result == null ? 0 : #result.usage()")
    public Flux<Chunk> stream(String user, long tokens, int chunks) {
      return Flux.defer(() -> {
        runs.incrementAndGet();
        return Flux.range(1, chunks).map(i -> new Chunk("part " + i, i == chunks ? tokens : null));
      });
    }

    /** A stream the test feeds: it runs until the test ends it, or its subscriber goes away. */
    @RateLimited(name = "tokens", key = "#user", count = "100", actual = "#result.usage()")
    public Flux<Chunk> fed(String user, Sinks.Many<Chunk> chunks) {
      return Flux.defer(() -> {
        runs.incrementAndGet();
        return chunks.asFlux();
      });
    }
  }

  @Configuration
  @EnableRateLimiting
  static class App {
    @Bean
    ManualClock clock() {
      return new ManualClock(1_767_225_600_000L);
    }

    @Bean
    RateLimiter rateLimiter(ManualClock clock, RateLimitStore store) {
      return RateLimiter.builder().clock(clock).store(store)
          .limit("tokens", "fixed-window rate=" + CAPACITY + " period=1h")
          .limit("calls", "fixed-window rate=10 period=1h").build();
    }

    @Bean
    Llm llm() {
      return new Llm();
    }
  }

  /** The blocking paths on the in-memory store. */
  @Configuration
  static class InMemory extends App {
    @Bean
    RateLimitStore store(ManualClock clock) {
      return new InMemoryStore(clock);
    }
  }

  /** The asynchronous paths on a store that answers later and fails blocking calls. */
  @Configuration
  static class AnswersLater extends App {
    @Bean(destroyMethod = "close")
    RateLimitStore store(ManualClock clock) {
      return new AnswersLaterStore(clock);
    }
  }

  private void start(Class<?> app) {
    context = new AnnotationConfigApplicationContext(app);
    llm = context.getBean(Llm.class);
    limiter = context.getBean(RateLimiter.class);
  }

  @AfterEach
  void close() {
    context.close();
  }

  private double used(String user) {
    return CAPACITY - limiter.named("tokens").checkAsync(user, 0).toCompletableFuture().join().remaining();
  }

  @Test
  void value_settlesWithTheActualCount_belowOrAboveTheEstimate() {
    start(InMemory.class);
    assertThat(llm.complete("ann", 30).text()).isEqualTo("answer");
    assertThat(used("ann")).isEqualTo(30);
    llm.complete("ann", 2_500);
    assertThat(used("ann")).as("above the estimate: the difference taken").isEqualTo(2_530);
    llm.complete("ann", 100);
    assertThat(used("ann")).isEqualTo(2_630);
  }

  @Test
  void value_aboveWhatIsLeft_goesIntoDebt_boundedByOneCapacity() {
    start(InMemory.class);
    llm.complete("bea", CAPACITY - 200);
    llm.complete("bea", 500);
    assertThat(used("bea")).as("paid by the calls after it").isEqualTo(CAPACITY + 300);
    assertThatThrownBy(() -> llm.complete("bea", 1)).isInstanceOf(dev.ratelimit.RateLimitExceededException.class);
    llm.raw("cid", Long.MAX_VALUE);
    assertThat(used("cid")).as("one capacity of debt at most").isEqualTo(2.0 * CAPACITY);
  }

  @Test
  void methodThatThrows_keepsTheEstimate() {
    start(InMemory.class);
    assertThatThrownBy(() -> llm.fail("dan")).isInstanceOf(IllegalStateException.class);
    assertThat(used("dan")).isEqualTo(100);
  }

  /**
   * Values that are no count, and an expression that fails: the call already ran, so it returns
   * as it did, charged the estimate, never free; the first is logged, quoted.
   */
  @Test
  void valuesThatAreNoCount_keepTheEstimate_andAreLoggedOnce() {
    start(InMemory.class);
    List<Object> bad = List.of(-1, -0.5, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
        "12", "text\nforged line", new BigDecimal("1e400"), true, List.of(1));
    try (LogLines lines = LogLines.capture(RateLimitedAspect.class.getName())) {
      for (Object value : bad) {
        assertThat(llm.raw("eve", value)).isEqualTo(value);
      }
      assertThat(llm.raw("eve", null)).isNull();
      assertThat(used("eve")).isEqualTo(100.0 * (bad.size() + 1));
      assertThat(lines.all()).hasSize(1).allMatch(LogLines::isSafe);
      assertThat(lines.all().get(0)).startsWith("@RateLimited(name = \"tokens\", actual = \"#result\") on ")
          .contains("gave -1, which is not a count").endsWith("the call is charged its count, 100 (logged once per annotation)");
    }
    llm.raw("eve", 0);
    assertThat(used("eve")).as("0 is a count: everything given back").isEqualTo(100.0 * (bad.size() + 1));
    llm.raw("fay", new BigDecimal("12.5"));
    assertThat(used("fay")).isEqualTo(12.5);
  }

  @Test
  void chargeIfAndActual_chargeIfDecidesWhetherItCounts_actualHowMuch() {
    start(InMemory.class);
    llm.served("gus", 0, false);
    assertThat(used("gus")).as("chargeIf false: refunded").isZero();
    llm.served("gus", 40, false);
    assertThat(used("gus")).isEqualTo(40);
    assertThatThrownBy(() -> llm.served("gus", 40, true)).isInstanceOf(IllegalStateException.class);
    assertThat(used("gus")).as("counted, with no result to read: the estimate").isEqualTo(140);
  }

  @Test
  void severalLimits_eachSettledByItsOwnAnnotation() {
    start(InMemory.class);
    llm.counted("hal", 7);
    llm.counted("hal", 300);
    assertThat(used("hal")).isEqualTo(307);
    assertThat(limiter.named("calls").check("hal", 0).remaining()).isEqualTo(8);
  }

  @Test
  void valueConcurrently_endsAtExactlyCapacityMinusTheActualCosts() throws Exception {
    start(InMemory.class);
    AtomicLong actual = new AtomicLong();
    Concurrently.run(8, () -> {
      for (int i = 0; i < 500; i++) {
        long tokens = ThreadLocalRandom.current().nextLong(400);
        actual.addAndGet(tokens);
        llm.complete("many", tokens);
      }
      return null;
    });
    assertThat(used("many")).isEqualTo(actual.get());
  }

  @Test
  void completionStage_settlesWhenItCompletes_withoutBlocking() throws Exception {
    start(AnswersLater.class);
    CompletableFuture<Answer> answer = new CompletableFuture<>();
    CompletableFuture<Answer> given = llm.later("ivy", answer).toCompletableFuture();
    awaitRuns(1);
    assertThat(used("ivy")).as("the estimate, while the call runs").isEqualTo(100);
    answer.complete(new Answer("later", 700));
    assertThat(given.get(30, TimeUnit.SECONDS).tokens()).isEqualTo(700);
    assertThat(used("ivy")).isEqualTo(700);
    CompletableFuture<Answer> failing = new CompletableFuture<>();
    CompletableFuture<Answer> failed = llm.later("ivy", failing).toCompletableFuture();
    awaitRuns(2);
    failing.completeExceptionally(new IllegalStateException("down"));
    assertThatThrownBy(() -> failed.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
    assertThat(used("ivy")).as("failed: the estimate").isEqualTo(800);
  }

  @Test
  void completionStage_cancelledByItsCallerAfterItStarted_isStillSettledWithWhatItCost() throws Exception {
    start(AnswersLater.class);
    CompletableFuture<Answer> answer = new CompletableFuture<>();
    CompletableFuture<Answer> given = llm.later("jo", answer).toCompletableFuture();
    awaitRuns(1);
    given.cancel(false);
    answer.complete(new Answer("later", 5));
    assertThat(awaitUsed("jo", 5)).isEqualTo(5);
  }

  @Test
  void completionStage_chargeIfRefund_doesNotBlock() throws Exception {
    start(AnswersLater.class);
    CompletableFuture<Answer> answer = new CompletableFuture<>();
    CompletableFuture<Answer> given = llm.laterIfServed("joy", answer).toCompletableFuture();
    awaitRuns(1);
    answer.complete(new Answer("not served", 0));
    assertThat(given.get(30, TimeUnit.SECONDS).text()).isEqualTo("not served");
    assertThat(used("joy")).as("refunded through the store's asynchronous refund").isZero();
  }

  @Test
  void mono_settlesWithItsValue_withoutBlocking() {
    start(AnswersLater.class);
    StepVerifier.create(llm.mono("kim", 42)).expectNextMatches(a -> a.tokens() == 42).expectComplete().verify(HANG);
    StepVerifier.create(llm.mono("kim", 420)).expectNextCount(1).expectComplete().verify(HANG);
    assertThat(used("kim")).isEqualTo(462);
  }

  @Test
  void flux_settlesWithItsLastElement_andAnEmptyOneWithNull() {
    start(AnswersLater.class);
    StepVerifier.create(llm.stream("lee", 250, 3)).expectNextCount(3).expectComplete().verify(HANG);
    assertThat(used("lee")).isEqualTo(250);
    StepVerifier.create(llm.stream("lee", 999, 0)).expectComplete().verify(HANG);
    assertThat(used("lee")).as("empty: #result null, the expression says 0").isEqualTo(250);
  }

  @Test
  void flux_whoseExpressionFailsOnTheLastElement_keepsTheEstimate() {
    start(AnswersLater.class);
    Sinks.Many<Chunk> chunks = Sinks.many().unicast().onBackpressureBuffer();
    StepVerifier.create(llm.fed("max", chunks))
        .then(() -> chunks.tryEmitNext(new Chunk("no usage", null)))
        .expectNextCount(1)
        .then(chunks::tryEmitComplete)
        .expectComplete().verify(HANG);
    assertThat(used("max")).isEqualTo(100);
  }

  /** Work that ran is paid for (docs/design.md §2.7): a subscriber gone mid-stream leaves the estimate. */
  @Test
  void flux_cancelledAfterTheWorkStarted_keepsTheEstimate() {
    start(AnswersLater.class);
    Sinks.Many<Chunk> chunks = Sinks.many().unicast().onBackpressureBuffer();
    StepVerifier.create(llm.fed("ned", chunks))
        .then(() -> chunks.tryEmitNext(new Chunk("first", null)))
        .expectNextCount(1)
        .thenCancel().verify(HANG);
    assertThat(llm.runs()).isEqualTo(1);
    assertThat(used("ned")).isEqualTo(100);
  }

  @Test
  void mono_cancelledBeforeItsDecisionArrived_neverRuns_andIsRefunded() {
    start(AnswersLater.class);
    AnswersLaterStore store = context.getBean(AnswersLaterStore.class);
    store.holdAnswers();
    StepVerifier.create(llm.mono("ola", 42)).thenRequest(1).thenCancel().verify(HANG);
    store.releaseAnswers();
    assertThat(awaitUsed("ola", 0)).isZero();
    assertThat(llm.runs()).isZero();
  }

  @Test
  void reactiveAndStagesConcurrently_endAtExactlyCapacityMinusTheActualCosts() throws Exception {
    start(AnswersLater.class);
    AtomicLong actual = new AtomicLong();
    Concurrently.run(6, () -> {
      for (int i = 0; i < 100; i++) {
        long tokens = ThreadLocalRandom.current().nextLong(400);
        actual.addAndGet(tokens);
        switch (i % 3) {
          case 0 -> llm.mono("all", tokens).block(HANG);
          case 1 -> llm.stream("all", tokens, 4).blockLast(HANG);
          default -> llm.later("all", CompletableFuture.completedFuture(new Answer("now", tokens)))
              .toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
      }
      return null;
    });
    assertThat(used("all")).isEqualTo(actual.get());
  }

  /** The method runs on the store's thread once the charge is decided: waits for that, not for a time. */
  private void awaitRuns(int runs) {
    org.awaitility.Awaitility.await().atMost(HANG).until(() -> llm.runs() >= runs);
  }

  /** A settlement after the caller left is not waited on by anyone: waits until the store has it. */
  private double awaitUsed(String user, double expected) {
    org.awaitility.Awaitility.await().atMost(HANG).until(() -> used(user) == expected);
    return used(user);
  }
}

package dev.ratelimit.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.limiter.RateLimiter;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * {@code Mono} and {@code Flux} methods on a store that answers later on its own thread and
 * fails the test when its blocking methods are called: the reactive path decides through the
 * limiter's async API only, and a failed decision is an error signal, never an unlimited call.
 */
class ReactorLimitingTest {
  /** A guard against a hang, not a wait for anything: each answer comes as soon as the store thread runs. */
  private static final Duration HANG = Duration.ofSeconds(30);

  private AnnotationConfigApplicationContext context;

  @AfterEach
  void close() {
    context.close();
  }

  public static class Work {
    private final AtomicInteger runs = new AtomicInteger();

    /** Subscriptions of the work itself, counted when it runs, not when it is assembled (a method: read through the proxy). */
    public int runs() {
      return runs.get();
    }

    @RateLimited(name = "send", key = "#user")
    public Mono<String> send(String user) {
      return Mono.fromCallable(() -> "sent " + runs.incrementAndGet() + " for " + user);
    }

    @RateLimited(name = "send", key = "#user")
    @RateLimited(name = "daily", key = "#user")
    public Mono<String> sendTwice(String user) {
      return Mono.fromCallable(() -> "sent " + runs.incrementAndGet());
    }

    /** Work that takes long: it signals {@code started}, and is never done while the test looks. */
    @RateLimited(name = "send", key = "#user")
    public Mono<String> sendSlowly(String user, Semaphore started) {
      return Mono.defer(() -> {
        runs.incrementAndGet();
        started.release();
        return Mono.never();
      });
    }

    @RateLimited(name = "send", key = "#user")
    public Flux<Integer> stream(String user) {
      return Flux.defer(() -> Flux.just(runs.incrementAndGet(), 0));
    }
  }

  @Configuration
  @EnableRateLimiting
  static class App {
    @Bean
    ManualClock clock() {
      return new ManualClock(1_767_225_600_000L);
    }

    @Bean(destroyMethod = "close")
    AnswersLaterStore store(ManualClock clock) {
      return new AnswersLaterStore(clock);
    }

    @Bean
    RateLimiter rateLimiter(ManualClock clock, AnswersLaterStore store) {
      return RateLimiter.builder().clock(clock).store(store)
          .limit("send", "token-bucket rate=2 period=1m")
          .limit("daily", "fixed-window rate=3 period=1d")
          .build();
    }

    @Bean
    Work work() {
      return new Work();
    }
  }

  private Work start() {
    context = new AnnotationConfigApplicationContext(App.class);
    return context.getBean(Work.class);
  }

  @Test
  void mono_onAStoreAnsweringLater_isLimitedPerSubscription() {
    Work work = start();
    Mono<String> send = work.send("ann");
    StepVerifier.create(send).expectNext("sent 1 for ann").expectComplete().verify(HANG);
    StepVerifier.create(send).expectNext("sent 2 for ann").expectComplete().verify(HANG);
    StepVerifier.create(send).expectErrorSatisfies(denial -> assertThat(denial)
            .isInstanceOf(RateLimitExceededException.class).hasMessage("Rate limit 'send' exceeded; retry after 30000 ms"))
        .verify(HANG);
    StepVerifier.create(work.send("bob")).expectNext("sent 3 for bob").expectComplete().verify(HANG);
    assertThat(work.runs()).isEqualTo(3);
  }

  @Test
  void mono_waitsForTheStoresAnswerWithoutBlocking_andGoesOnWhereItArrives() {
    Work work = start();
    AnswersLaterStore store = context.getBean(AnswersLaterStore.class);
    store.holdAnswers();
    StepVerifier.create(work.send("ann").map(sent -> sent + " on " + Thread.currentThread().getName()))
        .then(() -> assertThat(work.runs()).as("nothing runs before the answer").isZero())
        .then(store::releaseAnswers)
        .expectNext("sent 1 for ann on " + AnswersLaterStore.THREAD).expectComplete().verify(HANG);
  }

  @Test
  void mono_withTwoLimits_allOrNothingOnTheAsyncPath() {
    Work work = start();
    StepVerifier.create(work.sendTwice("ann")).expectNext("sent 1").expectComplete().verify(HANG);
    StepVerifier.create(work.sendTwice("ann")).expectNext("sent 2").expectComplete().verify(HANG);
    StepVerifier.create(work.sendTwice("ann"))
        .expectErrorSatisfies(denial -> assertThat(((RateLimitExceededException) denial).limitName()).isEqualTo("send"))
        .verify(HANG);
    context.getBean(ManualClock.class).advance(Duration.ofMinutes(1));
    // send refilled; daily has one left: the denied call above took nothing from it
    StepVerifier.create(work.sendTwice("ann")).expectNext("sent 3").expectComplete().verify(HANG);
    StepVerifier.create(work.sendTwice("ann"))
        .expectErrorSatisfies(denial -> assertThat(((RateLimitExceededException) denial).limitName()).isEqualTo("daily"))
        .verify(HANG);
    assertThat(work.runs()).isEqualTo(3);
  }

  @Test
  void mono_cancelledAfterItsWorkStarted_staysCharged() throws Exception {
    Work work = start();
    Semaphore started = new Semaphore(0);
    Disposable call = work.sendSlowly("ann", started).subscribe();
    assertThat(started.tryAcquire(HANG.toSeconds(), TimeUnit.SECONDS)).as("the work started").isTrue();
    call.dispose(); // the subscriber went away while the work runs
    RateLimiter limiter = context.getBean(RateLimiter.class);
    assertThat(limiter.named("send").checkAsync("ann", 0).toCompletableFuture().get().remaining()).isEqualTo(1);
    StepVerifier.create(work.send("ann")).expectNext("sent 2 for ann").expectComplete().verify(HANG);
    StepVerifier.create(work.send("ann")).expectError(RateLimitExceededException.class).verify(HANG);
  }

  @Test
  void flux_onAStoreAnsweringLater_isLimitedPerSubscription() {
    Work work = start();
    Flux<Integer> stream = work.stream("ann");
    StepVerifier.create(stream).expectNext(1, 0).expectComplete().verify(HANG);
    StepVerifier.create(stream).expectNext(2, 0).expectComplete().verify(HANG);
    StepVerifier.create(stream).expectError(RateLimitExceededException.class).verify(HANG);
    assertThat(work.runs()).isEqualTo(2);
  }

  @Test
  void mono_whenTheDecisionFails_signalsTheErrorAndNeverRunsTheWork() {
    Work work = start();
    IllegalStateException broken = new IllegalStateException("the store broke");
    context.getBean(AnswersLaterStore.class).failWith(broken);
    StepVerifier.create(work.send("ann")).expectErrorSatisfies(error -> assertThat(error).isSameAs(broken))
        .verify(HANG);
    StepVerifier.create(work.sendTwice("ann")).expectErrorSatisfies(error -> assertThat(error).isSameAs(broken))
        .verify(HANG);
    StepVerifier.create(work.stream("ann")).expectErrorSatisfies(error -> assertThat(error).isSameAs(broken))
        .verify(HANG);
    assertThat(work.runs()).isEqualTo(0);
  }
}

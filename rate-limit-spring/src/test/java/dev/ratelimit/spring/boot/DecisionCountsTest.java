package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.Decision;
import dev.ratelimit.DecisionListener;
import dev.ratelimit.FailurePolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DecisionCountsTest {
  private static final Decision ALLOWED = new Decision(true, 1, 2, 0, 0);
  private static final Decision DENIED = new Decision(false, 0, 2, 1000, 1000);

  @Test
  void counts_byOutcomeAndSource_onlyForConfiguredNames() {
    DecisionCounts counts = new DecisionCounts(List.of("api"));
    counts.onDecision("api", ALLOWED, null);
    counts.onDecision("api", DENIED, null);
    counts.onDecision("api", ALLOWED, FailurePolicy.OPEN);
    counts.onDecision("api", DENIED, FailurePolicy.LOCAL);
    counts.onDecision("api", DENIED, FailurePolicy.LOCAL);
    counts.onDecision("token-bucket rate=1 period=1s", ALLOWED, null); // an ad-hoc limit: its spec
    DecisionCounts.Counts api = counts.counts("api");
    assertThat(api.allowed()).isEqualTo(2);
    assertThat(api.denied()).isEqualTo(3);
    assertThat(api.fallbackAllowed()).isEqualTo(1);
    assertThat(api.fallbackDenied()).isEqualTo(2);
    assertThat(api.storeAllowed()).isEqualTo(1);
    assertThat(api.storeDenied()).isEqualTo(1);
    assertThat(counts.counts("token-bucket rate=1 period=1s")).as("no growth from unconfigured names").isNull();
  }

  @Test
  void shadowDenials_areCountedApart_fromTheLimitersOwnCalls() {
    DecisionCounts counts = new DecisionCounts(List.of("soft"));
    dev.ratelimit.limiter.RateLimiter limiter = dev.ratelimit.limiter.RateLimiter.builder()
        .limit("soft", "fixed-window rate=1 period=1h mode=shadow").listener(counts).build();
    for (int i = 0; i < 3; i++) {
      assertThat(limiter.named("soft").limit("k", 1).allowed()).as("a shadow limit never denies").isTrue();
    }
    DecisionCounts.Counts soft = counts.counts("soft");
    assertThat(soft.allowed()).isEqualTo(1);
    assertThat(soft.shadowDenied()).isEqualTo(2);
    assertThat(soft.denied()).isZero();
  }

  @Test
  void concurrentDecisions_areCountedExactly_andAPeekOnOneThreadHidesOnlyItsOwn() throws Exception {
    DecisionCounts counts = new DecisionCounts(List.of("api"));
    int threads = 4;
    int each = 20_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        boolean peeker = t == 0;
        done.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < each; i++) {
            if (peeker) {
              counts.unobserved(() -> {
                counts.onDecision("api", DENIED, null);
                return null;
              });
            }
            counts.onDecision("api", i % 2 == 0 ? ALLOWED : DENIED, null);
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(counts.counts("api").allowed()).isEqualTo(threads * each / 2);
    assertThat(counts.counts("api").denied()).isEqualTo(threads * each / 2);
  }

  @Test
  void listeners_eachHearsTheDecision_evenAfterOneThrows_andTheFirstFailureIsPassedOn() {
    DecisionCounts first = new DecisionCounts(List.of("api"));
    DecisionCounts last = new DecisionCounts(List.of("api"));
    DecisionListener broken = (limit, decision, fallback) -> {
      throw new IllegalStateException("broken listener");
    };
    DecisionListener all = Listeners.of(List.of(first, broken, last));
    assertThatThrownBy(() -> all.onDecision("api", ALLOWED, null)).hasMessage("broken listener");
    assertThat(first.counts("api").allowed()).isEqualTo(1);
    assertThat(last.counts("api").allowed()).isEqualTo(1);
    assertThat(Listeners.of(List.of())).isNull();
    assertThat(Listeners.of(List.of(first))).isSameAs(first);
  }

  @Test
  void listeners_anErrorInOne_stopsNoneAfterIt_andShadowDenialsReachEach() {
    DecisionCounts first = new DecisionCounts(List.of("api"));
    DecisionCounts last = new DecisionCounts(List.of("api"));
    DecisionListener broken = (limit, decision, fallback) -> {
      throw new StackOverflowError("an Error of the listener's");
    };
    DecisionListener all = Listeners.of(List.of(first, broken, last));
    assertThatThrownBy(() -> all.onDecision("api", ALLOWED, null, true)).isInstanceOf(StackOverflowError.class);
    assertThat(first.counts("api").shadowDenied()).isEqualTo(1);
    assertThat(last.counts("api").shadowDenied()).as("after the Error, as a shadow denial").isEqualTo(1);
  }
}

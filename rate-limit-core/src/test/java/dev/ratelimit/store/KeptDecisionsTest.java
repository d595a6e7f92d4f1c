package dev.ratelimit.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.limiter.RateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Decisions that write nothing are kept per key and shared (docs/design.md §4.2): the same
 * request on the same state in the same millisecond is the same object; anything that changes the
 * answer (time, the state, the count, the operation, another plan) decides again.
 */
class KeptDecisionsTest {
  private final ManualClock clock = new ManualClock(1_700_000_000_000L);

  private RateLimiter limiter(Limit limit) {
    return RateLimiter.builder().clock(clock).limit("api", limit).build();
  }

  @Test
  void aRepeatedDenial_isTheKeptDecision_untilTimeOrStateMoves() {
    RateLimiter limiter = limiter(Limit.tokenBucket(10, Duration.ofSeconds(1)));
    for (int i = 0; i < 10; i++) {
      assertThat(limiter.named("api").limit("k", 1).allowed()).isTrue();
    }
    Decision denied = limiter.named("api").limit("k", 1);
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.retryAfterMillis()).isEqualTo(100);
    assertThat(limiter.named("api").limit("k", 1)).isSameAs(denied);
    assertThat(limiter.named("api").limit("k", 2)).isNotSameAs(denied).satisfies(d -> {
      assertThat(d.allowed()).isFalse();
      assertThat(d.retryAfterMillis()).isEqualTo(200);
    });
    assertThat(limiter.named("api").check("k", 1)).isNotSameAs(denied).isEqualTo(denied);

    clock.advanceMillis(1);
    Decision later = limiter.named("api").limit("k", 1);
    assertThat(later).isNotSameAs(denied);
    assertThat(later.retryAfterMillis()).isEqualTo(99);

    clock.advanceMillis(99);
    assertThat(limiter.named("api").limit("k", 1).allowed()).isTrue(); // the state moves
    Decision afterWrite = limiter.named("api").limit("k", 1);
    assertThat(afterWrite.allowed()).isFalse();
    assertThat(afterWrite.retryAfterMillis()).isEqualTo(100);
    assertThat(limiter.named("api").limit("k", 1)).isSameAs(afterWrite);
  }

  @Test
  void aKeptDenial_underOnePlan_isNotTheOtherPlansDecision() {
    RateLimiter limiter = RateLimiter.builder().clock(clock)
        .limit("api", Limit.tokenBucket(2, Duration.ofSeconds(1)))
        .onPlan("pro").limit("api", Limit.tokenBucket(5, Duration.ofSeconds(1)))
        .build();
    limiter.named("api").limit("k", 2);
    Decision free = limiter.named("api").limit("k", 1);
    assertThat(free.allowed()).isFalse();
    assertThat(limiter.named("api").limit("k", 1)).isSameAs(free);
    // the pro plan reads the same state (2 units used of its 5) and decides on it afresh
    Decision pro = limiter.named("api").onPlan("pro").limit("k", 1);
    assertThat(pro.allowed()).isTrue();
    assertThat(pro.remaining()).isEqualTo(2.0);
    assertThat(pro.limit()).isEqualTo(5.0);
    // back on the free plan, the key holds 3 used, capped by its capacity of 2: still denied, anew
    Decision again = limiter.named("api").limit("k", 1);
    assertThat(again).isNotSameAs(free);
    assertThat(again.allowed()).isFalse();
  }

  /**
   * Many threads on one hot key at 1,000 units a second while the clock moves a millisecond at a
   * time: most calls are kept denials, and exactly one unit a millisecond is admitted, never more.
   */
  @Test
  void manyThreadsOnAHotKey_admitExactlyTheRefill() throws Exception {
    RateLimiter limiter = limiter(Limit.tokenBucket(1000, Duration.ofSeconds(1)).withCapacity(5));
    int threads = 8;
    int millis = 300;
    int callsPerMilli = 200;
    AtomicLong admitted = new AtomicLong();
    CyclicBarrier tick = new CyclicBarrier(threads, () -> clock.advanceMillis(1));
    List<Thread> workers = new ArrayList<>();
    List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread worker = new Thread(() -> {
        try {
          for (int m = 0; m < millis; m++) {
            for (int c = 0; c < callsPerMilli; c++) {
              if (limiter.named("api").limit("hot", 1).allowed()) {
                admitted.incrementAndGet();
              }
            }
            tick.await();
          }
        } catch (Throwable e) {
          failures.add(e);
        }
      });
      workers.add(worker);
      worker.start();
    }
    for (Thread worker : workers) {
      worker.join();
    }
    assertThat(failures).isEmpty();
    // the burst of 5, then one unit for each of the 299 milliseconds that passed while calls ran
    assertThat(admitted.get()).isEqualTo(5 + millis - 1);
  }
}

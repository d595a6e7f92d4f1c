package dev.ratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ratelimit.Decision;
import dev.ratelimit.contract.PinnedThreads;
import dev.ratelimit.contract.StillClock;
import dev.ratelimit.contract.VirtualThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code acquire} on 10,000 virtual threads at once: exact counts, every thread returns, and no
 * thread is pinned to its carrier while it waits for its turn (JFR). On Java 21 and later: the
 * build runs it on Java 25 (CONTRIBUTING.md); on 17 it is skipped.
 */
class VirtualThreadAcquireTest {
  private static final int THREADS = 10_000;

  @BeforeEach
  void virtualThreads() {
    assumeTrue(VirtualThreads.available(), "virtual threads: Java 21 or later");
  }

  /** Each thread acquires once; the admitted ones are counted, the others must be denials. */
  private static int admitted(RateLimiter limiter, String limit, Duration maxWait) throws Exception {
    AtomicInteger admitted = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService threads = VirtualThreads.executor();
    List<Future<?>> done = new ArrayList<>();
    for (int i = 0; i < THREADS; i++) {
      done.add(threads.submit(() -> {
        start.await();
        Decision decision = limiter.named(limit).acquire("one-key", 1, maxWait);
        if (decision.allowed()) {
          admitted.incrementAndGet();
        }
        return null;
      }));
    }
    start.countDown();
    threads.shutdown();
    assertThat(threads.awaitTermination(1, TimeUnit.MINUTES)).as("no thread stuck").isTrue();
    for (Future<?> future : done) {
      future.get(); // rethrows a thread's failure
    }
    return admitted.get();
  }

  @Test
  void acquireWithWaits_onVirtualThreads_admitsCapacityPlusWhatRefillsWithinMaxWait_andNeverPins() throws Exception {
    RateLimiter limiter = RateLimiter.builder().clock(new StillClock(1_767_225_600_000L))
        .limit("exports", "token-bucket rate=1000 period=1s capacity=100").build();
    limiter.named("exports").acquire("warm-up", 1, Duration.ZERO); // classes loaded before the threads start

    int[] admitted = new int[1];
    List<String> pinned = PinnedThreads.during("dev.ratelimit",
        () -> admitted[0] = admitted(limiter, "exports", Duration.ofMillis(500)));

    // design §2.4: the reservations queue one unit per millisecond behind the capacity, and a wait
    // longer than maxWait gives up without consuming: capacity + rate × maxWait
    assertThat(admitted[0]).isEqualTo(100 + 500);
    assertThat(pinned).as("pinned while waiting").isEmpty();
  }

  @Test
  void acquireOfAKindWithoutReservations_onVirtualThreads_admitsExactlyTheRate_andNeverPins() throws Exception {
    RateLimiter limiter = RateLimiter.builder().clock(new StillClock(1_767_225_600_000L))
        .limit("reports", "sliding-window rate=2500 period=1h").build();
    limiter.named("reports").acquire("warm-up", 1, Duration.ZERO);

    int[] admitted = new int[1];
    List<String> pinned = PinnedThreads.during("dev.ratelimit",
        () -> admitted[0] = admitted(limiter, "reports", Duration.ofMillis(200)));

    assertThat(admitted[0]).as("the window does not move within maxWait: its rate, no more").isEqualTo(2500);
    assertThat(pinned).isEmpty();
  }
}

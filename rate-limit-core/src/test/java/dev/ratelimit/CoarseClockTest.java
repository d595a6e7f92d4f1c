package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.limiter.RateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** {@link Clock#coarse()}: never ahead of the system clock, never back, and it moves (design §2.3). */
class CoarseClockTest {
  private final Clock coarse = Clock.coarse();

  @Test
  void isOneClock_namedAsItIsMade() {
    assertThat(Clock.coarse()).isSameAs(coarse);
    assertThat(coarse).hasToString("Clock.coarse()");
  }

  /** Four threads, each reading both clocks a million times: coarse first, so it must not be ahead. */
  @Test
  void isNeverAheadOfTheSystemClock_andNeverGoesBack() throws Exception {
    List<String> failures = new CopyOnWriteArrayList<>();
    List<Thread> readers = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      Thread reader = new Thread(() -> {
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < 1_000_000; i++) {
          long late = coarse.millis();
          long exact = Clock.system().millis();
          if (late > exact) {
            failures.add("coarse " + late + " ahead of system " + exact);
          }
          if (late < previous) {
            failures.add("coarse went back from " + previous + " to " + late);
          }
          previous = late;
        }
      });
      readers.add(reader);
      reader.start();
    }
    for (Thread reader : readers) {
      reader.join();
    }
    assertThat(failures).isEmpty();
  }

  @Test
  void moves() {
    long start = coarse.millis();
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (coarse.millis() < start + 5 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(coarse.millis()).isGreaterThanOrEqualTo(start + 5);
  }

  @Test
  void aLimiterOnIt_admitsTheBurstThenWaitsTheWholeRefill() {
    RateLimiter limiter = RateLimiter.builder().clock(coarse).limit("api", "token-bucket rate=3 period=1h").build();
    for (int i = 0; i < 3; i++) {
      assertThat(limiter.named("api").limit("k", 1).allowed()).isTrue();
    }
    Decision denied = limiter.named("api").limit("k", 1);
    assertThat(denied.allowed()).isFalse();
    // 20 minutes for one unit, less only the coarse time that passed since the burst
    assertThat(denied.retryAfterMillis()).isBetween(1_200_000L - 10_000, 1_200_000L);
  }
}

package dev.ratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.ratelimit.ManualClock;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Tiny counts are charged or refused, never free: a count within the float tolerance must not be
 * admitted on an empty bucket while taking nothing, however many times it is asked.
 */
class TinyCountsTest {
  private static final double CAPACITY = 5;
  private final ManualClock clock = new ManualClock(1_767_225_600_000L);

  private RateLimiter limiter(String spec) {
    return RateLimiter.builder().clock(clock).store(new dev.ratelimit.store.InMemoryStore(clock))
        .limit("l", spec).build();
  }

  /** A million refusals, each an exception with its message: tagged {@code flood} for its time. */
  @Tag("flood")
  @ParameterizedTest
  @ValueSource(strings = {"token-bucket rate=5 period=15m", "gcra rate=5 period=15m"})
  void aMillionCountsOfATrillionthOfTheCapacity_onAnEmptyBucket_areNotAllAdmitted(String spec) {
    RateLimiter limiter = limiter(spec);
    assertThat(limiter.named("l").limit("k", CAPACITY).allowed()).isTrue();
    int admitted = 0;
    int refused = 0;
    for (int i = 0; i < 1_000_000; i++) {
      try {
        admitted += limiter.named("l").limit("k", 1e-12 * CAPACITY).allowed() ? 1 : 0;
      } catch (IllegalArgumentException e) {
        refused++;
      }
    }
    assertThat(admitted).isZero();
    assertThat(refused).isEqualTo(1_000_000);
    assertThatThrownBy(() -> limiter.named("l").limit("k", 1e-12 * CAPACITY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("count 5.0E-12 is below the smallest count above 0, 0.0000000000")
        .hasMessageEndingWith("(1e-11 of the capacity, at least 1e-11), of limit 'l': so small a count would not be charged");
  }

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket rate=5 period=15m", "gcra rate=5 period=15m"})
  void theSmallestCount_isDeniedOnAnEmptyBucket_andChargedOnAFullOne(String spec) {
    RateLimiter limiter = limiter(spec);
    double smallest = 1e-11 * CAPACITY;
    limiter.named("l").limit("empty", CAPACITY);
    int admitted = 0;
    for (int i = 0; i < 1_000_000; i++) {
      admitted += limiter.named("l").limit("empty", smallest).allowed() ? 1 : 0;
      limiter.named("l").limit("full", smallest);
    }
    assertThat(admitted).isZero();
    assertThat(limiter.named("l").check("full", 0).remaining()).isCloseTo(CAPACITY - 1e6 * smallest, within(1e-9));
  }
}

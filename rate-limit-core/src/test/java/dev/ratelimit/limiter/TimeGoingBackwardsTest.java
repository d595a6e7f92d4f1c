package dev.ratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** docs/design.md §2: a clock going back never adds units; the token bucket loses none either. */
class TimeGoingBackwardsTest {

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "token-bucket rate=10 period=1s|true",
      "gcra rate=10 period=1s|false",
      "fixed-window rate=10 period=1s|true",
      "sliding-window rate=10 period=1s|true",
      "sliding-log rate=10 period=1s|true",
      "quota rate=10 cadence=day|true",
  })
  void clockGoingBack_neverAddsUnits(String spec, boolean losesNone) {
    ManualClock clock = new ManualClock(1_767_225_600_500L);
    RateLimiter limiter = RateLimiter.builder().clock(clock).limit("l", spec).build();
    limiter.named("l").limit("k", 6);
    double atLatest = limiter.named("l").check("k", 0).remaining();
    for (long back : new long[] {1, 100, 400, 86_400_000}) {
      clock.setMillis(1_767_225_600_500L - back);
      double earlier = limiter.named("l").check("k", 0).remaining();
      assertThat(earlier).as(back + " ms back").isLessThanOrEqualTo(atLatest);
      if (losesNone) {
        assertThat(earlier).as(back + " ms back").isEqualTo(atLatest);
      }
      assertThat(limiter.named("l").limit("k", 5).allowed()).as("no units appear " + back + " ms back").isFalse();
    }
  }

  /** A refund stores its time like a consumption: a later call from before it loses nothing. */
  @org.junit.jupiter.api.Test
  void refund_thenACallFromAnEarlierTime_losesNoUnits() {
    ManualClock clock = new ManualClock(0);
    RateLimiter limiter = RateLimiter.builder().clock(clock).limit("l", "token-bucket rate=125 period=1s capacity=5").build();
    limiter.named("l").limit("k", 5);
    clock.setMillis(100);
    assertThat(limiter.named("l").refund("k", 1).remaining()).isEqualTo(5);
    clock.setMillis(50);
    assertThat(limiter.named("l").check("k", 0).remaining()).as("as at the refund's time").isEqualTo(5);
  }
}

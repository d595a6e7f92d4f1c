package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.InMemoryStore;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every spec value that would overflow is a spec error naming the parameter and the value,
 * never an ArithmeticException at the first request.
 */
class SpecOverflowTest {
  private static final String HUGE = "1" + "0".repeat(400);

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "fixed-window rate=1 period=1h start=+999999999-12-31T23:59:59Z | start | +999999999-12-31T23:59:59Z",
      "fixed-window rate=1 period=1h start=-999999999-01-01T00:00:00Z | start | -999999999-01-01T00:00:00Z",
      "token-bucket rate=1 period=106751991168d | period | 106751991168d",
      "token-bucket rate=1 period=PT9223372036854775807S | period | PT9223372036854775807S",
      "gcra rate=1 period=110000d | period | PT2640000H",
      "sliding-log rate=1 period=P40000000D | period | P40000000D",
      "token-bucket rate=100000000000000000000 period=1s | rate | 1.0E20",
      "gcra rate=0.0000000000001 period=1s | rate | 1.0E-13",
      "token-bucket rate=1 period=1s capacity=10000000000000000 | capacity | 1.0E16",
      "fixed-window rate=1 period=1s maxReserved=10000000000000000 | maxReserved | 1.0E16",
      "quota rate=10000000000000000 cadence=day | rate | 1.0E16",
      "sliding-window rate=10000000000000000 period=1s | rate | 1.0E16",
      "fixed-window rate=0.000000001 period=1d capacity=1000000000000000 | capacity | 1.0E15",
      "gcra rate=0.001 period=1d capacity=1000000000000000 | capacity | 1.0E15",
      "token-bucket rate=1 period=1d capacity=200000000 | capacity | 2.0E8",
  })
  void overflowingValue_isASpecErrorNamingTheParameterAndTheValue(String spec, String parameter, String value) {
    assertThatThrownBy(() -> SpecParser.parse(spec))
        .isInstanceOf(InvalidLimitSpecException.class)
        .hasMessageContaining(parameter).hasMessageContaining(value);
  }

  @ParameterizedTest
  @ValueSource(strings = {"rate", "capacity", "maxReserved"})
  void aNumberNoDoubleHolds_isASpecErrorNamingTheParameter(String parameter) {
    String text = parameter.equals("rate")
        ? "token-bucket rate=" + HUGE + " period=1s"
        : "token-bucket rate=1 period=1s " + parameter + "=" + HUGE;
    assertThatThrownBy(() -> SpecParser.parse(text))
        .isInstanceOf(InvalidLimitSpecException.class)
        .hasMessageStartingWith("bad value '" + HUGE + "' for " + parameter);
  }

  @Test
  void records_refuseTheSameValues() {
    assertThatThrownBy(() -> new FixedWindow(1, Duration.ofHours(1), 1, 0, 1, Instant.MAX, false, null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("start").hasMessageContaining(
            Instant.MAX.toString());
    assertThatThrownBy(() -> Limit.tokenBucket(1, Duration.ofSeconds(Long.MAX_VALUE)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("period");
    assertThatThrownBy(() -> Limit.gcra(1e16, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rate").hasMessageContaining("1.0E16");
  }

  /** The extremes that are allowed decide without overflow: finite levels, waits that are not negative. */
  @ParameterizedTest
  @ValueSource(strings = {
      "fixed-window rate=1 period=1h start=+292278994-08-17T07:12:55.807Z",
      "fixed-window rate=1 period=1h start=-292275055-05-16T16:47:04.192Z",
      "token-bucket rate=1000000000000000 period=1ms", "token-bucket rate=0.000000001 period=106000d capacity=0.000000001",
      "gcra rate=0.001 period=1ms capacity=9000000000",
      "gcra rate=1000000000000000 period=1ms capacity=0.000000001",
      "fixed-window rate=1 period=1ms capacity=9000000000000 maxReserved=1000000000000000",
      "fixed-window rate=0.000000001 period=106000d capacity=0.000000001",
      "sliding-window rate=1000000000000000 period=106000d", "sliding-log rate=0.000000001 period=1ms",
      "quota rate=1000000000000000 cadence=month"})
  void allowedExtremes_decideWithoutOverflow(String spec) {
    ManualClock clock = new ManualClock(1_767_225_600_000L);
    RateLimiter limiter = RateLimiter.builder().clock(clock).store(new InMemoryStore(clock)).limit("l", spec).build();
    double capacity = limiter.limits().get("l").capacity();
    for (double count : new double[] {capacity / 2, capacity, capacity / 2}) {
      Decision decision = limiter.named("l").limit("k", count);
      assertThat(decision.remaining()).as("%s", decision).isNotNaN();
      assertThat(decision.retryAfterMillis()).as("%s", decision).isNotNegative();
      assertThat(decision.resetAfterMillis()).as("%s", decision).isNotNegative();
      clock.advanceMillis(1);
    }
  }
}

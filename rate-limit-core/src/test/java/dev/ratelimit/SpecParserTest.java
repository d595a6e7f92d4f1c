package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SpecParserTest {

  @Test
  void spec_readsEveryKindOfDesignSection5() {
    assertThat(Limit.parse("token-bucket rate=10 period=1m capacity=20 maxReserved=5"))
        .isEqualTo(new TokenBucket(10, Duration.ofMinutes(1), 20, 5, 1, null));
    assertThat(Limit.parse("fixed-window rate=100 period=1h start=2026-01-01T00:00:00Z"))
        .isEqualTo(Limit.fixedWindow(100, Duration.ofHours(1)).withStart(Instant.parse("2026-01-01T00:00:00Z")));
    assertThat(Limit.parse("gcra rate=5 period=1s capacity=10"))
        .isEqualTo(Limit.gcra(5, Duration.ofSeconds(1)).withCapacity(10));
    assertThat(Limit.parse("sliding-window rate=100 period=1m buckets=10"))
        .isEqualTo(new SlidingWindow(100, Duration.ofMinutes(1), 10, null));
    assertThat(Limit.parse("sliding-log rate=20 period=10s"))
        .isEqualTo(new SlidingLog(20, Duration.ofSeconds(10), null));
    assertThat(Limit.parse("quota rate=1000 cadence=month offset=+02:00"))
        .isEqualTo(new Quota(1000, Quota.Cadence.MONTH, ZoneOffset.ofHours(2), null));
  }

  @Test
  void spec_shorthandIsATokenBucketAndTakesMoreParameters() {
    assertThat(Limit.parse("10/1m")).isEqualTo(Limit.tokenBucket(10, Duration.ofMinutes(1)));
    assertThat(Limit.parse("10/1m capacity=20 failure=closed"))
        .isEqualTo(Limit.tokenBucket(10, Duration.ofMinutes(1)).withCapacity(20).withFailure(FailurePolicy.CLOSED));
  }

  @Test
  void spec_readsEveryDurationForm() {
    assertThat(SpecParams.parseDuration("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(SpecParams.parseDuration("10s")).isEqualTo(Duration.ofSeconds(10));
    assertThat(SpecParams.parseDuration("1.5s")).isEqualTo(Duration.ofMillis(1500));
    assertThat(SpecParams.parseDuration("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(SpecParams.parseDuration("1h")).isEqualTo(Duration.ofHours(1));
    assertThat(SpecParams.parseDuration("1d")).isEqualTo(Duration.ofDays(1));
    assertThat(SpecParams.parseDuration("PT1M")).isEqualTo(Duration.ofMinutes(1));
    assertThat(SpecParams.parseDuration("PT0.25S")).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void spec_takesPhaseFailureAndOffsetZ() {
    FixedWindow window = (FixedWindow) Limit.parse("fixed-window rate=5 period=1m phase=random failure=open");
    assertThat(window.randomPhase()).isTrue();
    assertThat(window.failure()).isEqualTo(FailurePolicy.OPEN);
    assertThat(((Quota) Limit.parse("quota rate=5 cadence=day offset=Z")).offset()).isEqualTo(ZoneOffset.UTC);
    assertThat(((Gcra) Limit.parse("gcra rate=5 period=1s shards=4")).shards()).isEqualTo(4);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "token-bucket rate=10 period=1m",
      "token-bucket rate=2.5 period=1500ms capacity=7.25 maxReserved=0 shards=8 failure=local",
      "gcra rate=5 period=1s capacity=10 maxReserved=3",
      "fixed-window rate=100 period=1h start=2026-01-01T00:00:30Z",
      "fixed-window rate=3 period=1d capacity=9 phase=random",
      "sliding-window rate=100 period=1m",
      "sliding-window rate=4 period=1s buckets=4 failure=closed",
      "sliding-log rate=20 period=10s",
      "quota rate=1000 cadence=week offset=-05:00",
  })
  void spec_writesBackWhatItReads(String spec) {
    Limit limit = Limit.parse(spec);
    assertThat(limit.toString()).isEqualTo(spec);
    assertThat(Limit.parse(limit.toString())).isEqualTo(limit);
  }

  @Test
  void spec_rejectsUnknownParameterNamingSpecTokenAndAllowed() {
    assertThatThrownBy(() -> Limit.parse("gcra rate=5 period=1s burst=3"))
        .isInstanceOf(InvalidLimitSpecException.class)
        .hasMessage("unknown parameter 'burst' in \"gcra rate=5 period=1s burst=3\"; allowed: rate, period, "
            + "capacity, maxReserved, shards, failure, mode, lease")
        .satisfies(e -> assertThat(((InvalidLimitSpecException) e).token()).isEqualTo("burst=3"));
  }

  @Test
  void spec_rejectsUnknownKind() {
    assertThatThrownBy(() -> Limit.parse("leaky-bucket rate=5 period=1s"))
        .isInstanceOf(InvalidLimitSpecException.class)
        .hasMessageContaining("unknown limit kind 'leaky-bucket'")
        .hasMessageContaining("allowed: token-bucket, gcra, fixed-window, sliding-window, sliding-log, quota");
  }

  @Test
  void spec_rejectsMissingRateAndPeriod() {
    assertThatThrownBy(() -> Limit.parse("token-bucket period=1s"))
        .hasMessage("missing parameter 'rate' in \"token-bucket period=1s\"; token-bucket needs rate and period");
    assertThatThrownBy(() -> Limit.parse("gcra rate=5"))
        .hasMessageContaining("missing parameter 'period'");
    assertThatThrownBy(() -> Limit.parse("quota rate=5"))
        .hasMessageContaining("missing parameter 'cadence'");
  }

  @Test
  void spec_rejectsNegativeZeroAndGarbageDurations() {
    assertThatThrownBy(() -> Limit.parse("token-bucket rate=10 period=-1s"))
        .isInstanceOf(InvalidLimitSpecException.class)
        .hasMessageContaining("bad value '-1s' for period").hasMessageContaining("negative");
    assertThatThrownBy(() -> Limit.parse("token-bucket rate=10 period=0s"))
        .hasMessageContaining("bad value '0s' for period").hasMessageContaining("positive");
    assertThatThrownBy(() -> Limit.parse("token-bucket rate=10 period=soon"))
        .hasMessageContaining("bad value 'soon' for period")
        .hasMessageContaining("250ms, 10s, 1.5s, 5m, 1h, 1d or ISO-8601");
    assertThatThrownBy(() -> Limit.parse("token-bucket rate=10 period=PT1X"))
        .hasMessageContaining("bad value 'PT1X' for period").hasMessageContaining("ISO-8601");
    assertThatThrownBy(() -> Limit.parse("token-bucket rate=10 period=0.5ms"))
        .hasMessageContaining("whole number of milliseconds");
    assertThatThrownBy(() -> Limit.parse("10/99999999999999999d")).hasMessageContaining("too long");
  }

  @Test
  void spec_rejectsABareNumberAsDuration() {
    assertThatThrownBy(() -> Limit.parse("token-bucket rate=10 period=60"))
        .isInstanceOf(InvalidLimitSpecException.class)
        .hasMessageContaining("bad value '60' for period").hasMessageContaining("has no unit");
  }

  @Test
  void spec_rejectsRepeatedParameterAndMalformedTokens() {
    assertThatThrownBy(() -> Limit.parse("token-bucket rate=10 rate=20 period=1s"))
        .hasMessage("parameter 'rate' is given twice in \"token-bucket rate=10 rate=20 period=1s\"");
    assertThatThrownBy(() -> Limit.parse("10/1m rate=5")).hasMessageContaining("parameter 'rate' is given twice");
    assertThatThrownBy(() -> Limit.parse("token-bucket rate 10 period=1s"))
        .hasMessageContaining("expected NAME=VALUE but found 'rate'");
    assertThatThrownBy(() -> Limit.parse("token-bucket rate= period=1s"))
        .hasMessageContaining("parameter 'rate' has no value");
    assertThatThrownBy(() -> Limit.parse("token-bucket Rate=10 period=1s"))
        .hasMessageContaining("unknown parameter 'Rate'");
    assertThatThrownBy(() -> Limit.parse("10/")).hasMessageContaining("bad shorthand '10/'");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "   "})
  void spec_rejectsEmpty(String spec) {
    assertThatThrownBy(() -> Limit.parse(spec)).isInstanceOf(InvalidLimitSpecException.class)
        .hasMessageContaining("empty limit spec");
  }

  @Test
  void spec_rejectsBadNumbersAndValues() {
    assertThatThrownBy(() -> Limit.parse("token-bucket rate=ten period=1s"))
        .hasMessageContaining("bad value 'ten' for rate").hasMessageContaining("number greater than 0");
    assertThatThrownBy(() -> Limit.parse("token-bucket rate=NaN period=1s")).hasMessageContaining("bad value 'NaN'");
    assertThatThrownBy(() -> Limit.parse("token-bucket rate=0 period=1s")).hasMessageContaining("bad value '0'");
    assertThatThrownBy(() -> Limit.parse("token-bucket rate=-3 period=1s")).hasMessageContaining("bad value '-3'");
    assertThatThrownBy(() -> Limit.parse("token-bucket rate=1e3 period=1s")).hasMessageContaining("bad value '1e3'");
    assertThatThrownBy(() -> Limit.parse("token-bucket rate=5 period=1s capacity=0"))
        .hasMessageContaining("bad value '0' for capacity");
    assertThatThrownBy(() -> Limit.parse("token-bucket rate=5 period=1s maxReserved=-1"))
        .hasMessageContaining("bad value '-1' for maxReserved");
    assertThatThrownBy(() -> Limit.parse("gcra rate=5 period=1s shards=0"))
        .hasMessageContaining("bad value '0' for shards").hasMessageContaining("whole number, 1 or more");
    assertThatThrownBy(() -> Limit.parse("sliding-window rate=5 period=1s buckets=2.5"))
        .hasMessageContaining("bad value '2.5' for buckets");
    assertThatThrownBy(() -> Limit.parse("sliding-window rate=5 period=1s buckets=3"))
        .hasMessageContaining("invalid limit spec").hasMessageContaining("buckets=3");
    assertThatThrownBy(() -> Limit.parse("fixed-window rate=5 period=1s start=yesterday"))
        .hasMessageContaining("bad value 'yesterday' for start").hasMessageContaining("ISO-8601 instant");
    assertThatThrownBy(() -> Limit.parse("fixed-window rate=5 period=1s phase=sometimes"))
        .hasMessageContaining("bad value 'sometimes' for phase");
    assertThatThrownBy(() -> Limit.parse("fixed-window rate=5 period=1s start=2026-01-01T00:00:00Z phase=random"))
        .hasMessageContaining("start and phase=random conflict");
    assertThatThrownBy(() -> Limit.parse("quota rate=5 cadence=year"))
        .hasMessage("bad value 'year' for cadence in \"quota rate=5 cadence=year\": allowed: day, week, month");
    assertThatThrownBy(() -> Limit.parse("quota rate=5 cadence=day offset=CET"))
        .hasMessageContaining("bad value 'CET' for offset").hasMessageContaining("+HH:MM");
    assertThatThrownBy(() -> Limit.parse("quota rate=5 cadence=day offset=+25:00"))
        .hasMessageContaining("bad value '+25:00' for offset");
    assertThatThrownBy(() -> Limit.parse("10/1m failure=maybe"))
        .hasMessageContaining("bad value 'maybe' for failure").hasMessageContaining("open, closed, local");
  }

  @Test
  void spec_parametersOfOtherKindsAreUnknown() {
    assertThatThrownBy(() -> Limit.parse("sliding-log rate=5 period=1s capacity=10"))
        .hasMessage("unknown parameter 'capacity' in \"sliding-log rate=5 period=1s capacity=10\"; allowed: "
            + "rate, period, failure, mode");
    assertThatThrownBy(() -> Limit.parse("token-bucket rate=5 period=1s buckets=10"))
        .hasMessageContaining("unknown parameter 'buckets'");
  }

  @Test
  void records_checkTheirOwnValues() {
    assertThatThrownBy(() -> Limit.tokenBucket(Double.NaN, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rate").hasMessageContaining("NaN");
    assertThatThrownBy(() -> Limit.gcra(1, Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("period must be positive");
    assertThatThrownBy(() -> Limit.tokenBucket(1, Duration.ofSeconds(1)).withShards(0))
        .hasMessageContaining("shards must be at least 1 but was 0");
    assertThatThrownBy(() -> Limit.fixedWindow(1, Duration.ofSeconds(1)).withRandomPhase()
        .withStart(Instant.parse("2026-01-01T00:00:00Z")))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("conflict");
  }
}

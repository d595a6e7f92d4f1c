package dev.ratelimit.bucket4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.FixedWindow;
import dev.ratelimit.Limit;
import dev.ratelimit.algorithm.LimitKind;
import io.github.bucket4j.Bandwidth;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Limits as bucket4j buckets: kinds, scale, refill, alignment. */
class BucketMappingTest {

  @ParameterizedTest
  @ValueSource(strings = {"gcra rate=5 period=1s", "sliding-window rate=5 period=1s", "sliding-log rate=5 period=1s",
      "quota rate=5 cadence=day"})
  void bind_refusesOtherKindsNamingTheOnesItRuns(String spec) {
    try (Bucket4jStore store = Bucket4jStore.local()) {
      assertThatThrownBy(() -> store.bind("l", Limit.parse(spec))).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("token-bucket and fixed-window").hasMessageContaining(spec.substring(0, spec.indexOf(' ')));
    }
  }

  @Test
  void bind_refusesALease_naming_theRedisStore() {
    try (Bucket4jStore store = Bucket4jStore.local()) {
      assertThatThrownBy(() -> store.bind("l", Limit.parse("token-bucket rate=100 period=1s lease=10")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("the bucket4j store has no leases: lease=10 is for the Redis store (rate-limit-redis)")
          .hasMessageContaining("Optimizations.batching()");
      assertThat(store.bind("l", Limit.parse("token-bucket rate=100 period=1s"))).isNotNull();
    }
  }

  @Test
  void tokenBucket_refillsGreedilyAtTheRateInLowestTerms() {
    BucketMapping mapping = BucketMapping.of(Limit.parse("token-bucket rate=125 period=1s capacity=5"));
    Bandwidth bandwidth = mapping.configuration("k").getBandwidths()[0];

    assertThat(mapping.tokensPerUnit()).isEqualTo(1_000_000);
    assertThat(bandwidth.getCapacity()).isEqualTo(5_000_000);
    assertThat(bandwidth.isRefillIntervally()).isFalse();
    // 125 million tokens per second: one token every 8 ns
    assertThat(bandwidth.getRefillTokens()).isEqualTo(1);
    assertThat(bandwidth.getRefillPeriodNanos()).isEqualTo(8);
  }

  @Test
  void fixedWindow_refillsIntervallyAlignedToItsWindows() {
    BucketMapping mapping = BucketMapping.of(Limit.parse("fixed-window rate=2 period=1m capacity=5 start=2026-01-01T00:00:30Z"));
    Bandwidth bandwidth = mapping.configuration("k").getBandwidths()[0];

    assertThat(bandwidth.isRefillIntervally()).isTrue();
    assertThat(bandwidth.isIntervallyAligned()).isTrue();
    assertThat(bandwidth.getCapacity()).isEqualTo(5_000_000);
    assertThat(bandwidth.getRefillTokens()).isEqualTo(2_000_000);
    assertThat(bandwidth.getRefillPeriodNanos()).isEqualTo(60_000_000_000L);
    // every window start, before and after the configured one, is a whole number of windows from the first refill
    assertThat(bandwidth.getTimeOfFirstRefillMillis()).isEqualTo(30_000);
  }

  @Test
  void scale_isCoarserForFastRatesAndHugeCapacities() {
    assertThat(BucketMapping.of(Limit.parse("token-bucket rate=1000 period=1ms")).tokensPerUnit()).isEqualTo(1_000);
    assertThat(BucketMapping.of(Limit.parse("token-bucket rate=1000000000 period=1s")).tokensPerUnit()).isEqualTo(1);
    assertThat(BucketMapping.of(Limit.parse("token-bucket rate=1000 period=1s capacity=1000000000000")).tokensPerUnit())
        .isEqualTo(1_000);
  }

  @Test
  void rates_aboveOneTokenPerNanosecond_areRefused() {
    assertThatThrownBy(() -> BucketMapping.of(Limit.parse("token-bucket rate=2000000000 period=1s")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one token per nanosecond");
  }

  @Test
  void limitsFinerThanAToken_areRoundedDownToWholeTokens() {
    // a third of a limit, as sharding into 3 makes it
    BucketMapping mapping = BucketMapping.of(Limit.tokenBucket(10.0 / 3, java.time.Duration.ofSeconds(1)));

    assertThat(mapping.capacityTokens()).isEqualTo(3_333_333);
    assertThat(mapping.tokens(1.0 / 3, true)).isEqualTo(333_334);
    assertThat(mapping.tokens(1.0 / 3, false)).isEqualTo(333_333);
    assertThat(mapping.tokens(0.1 + 0.2, true)).as("float noise is not a fraction of a token").isEqualTo(300_000);
  }

  @Test
  void randomPhase_placesEachKeysWindowsAsEveryStoreDoes() {
    FixedWindow limit = ((FixedWindow) Limit.parse("fixed-window rate=2 period=1h")).withRandomPhase();
    BucketMapping mapping = BucketMapping.of(limit);
    for (String key : new String[] {"", "a", "user-42", "ünïcødé", "\uD83D\uDE00 emoji", "10.0.0.1"}) {
      assertThat(mapping.configuration(key).getBandwidths()[0].getTimeOfFirstRefillMillis())
          .isEqualTo(LimitKind.of(limit).windowOffset(limit, key));
    }
    FixedWindow started = ((FixedWindow) Limit.parse("fixed-window rate=2 period=1h")).withStart(Instant.parse("2026-01-01T00:20:00Z"));
    assertThat(BucketMapping.of(started).configuration("x").getBandwidths()[0].getTimeOfFirstRefillMillis())
        .isEqualTo(1_200_000);
  }

  @Test
  void fingerprint_changesWithTheLimitSoAnotherLimitStartsFresh() {
    assertThat(BucketMapping.of(Limit.parse("token-bucket rate=10 period=1m")).fingerprint())
        .isEqualTo(BucketMapping.of(Limit.parse("10/1m")).fingerprint())
        .isNotEqualTo(BucketMapping.of(Limit.parse("token-bucket rate=10 period=1m capacity=20")).fingerprint())
        .isNotEqualTo(BucketMapping.of(Limit.parse("fixed-window rate=10 period=1m")).fingerprint());
  }
}

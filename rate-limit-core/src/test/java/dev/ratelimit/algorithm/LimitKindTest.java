package dev.ratelimit.algorithm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.FixedWindow;
import dev.ratelimit.Limit;
import dev.ratelimit.TokenBucket;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Each kind's descriptor: looked up by the limit, and the one source of what stores are sent. */
class LimitKindTest {

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket rate=1 period=1s", "gcra rate=1 period=1s", "fixed-window rate=1 period=1s",
      "sliding-window rate=1 period=1s", "sliding-log rate=1 period=1s", "quota rate=1 cadence=day"})
  void everyKind_hasADescriptorNamedAsInSpecs_thatBuildsItsAlgorithm(String spec) {
    Limit limit = Limit.parse(spec);
    LimitKind kind = LimitKind.of(limit);

    assertThat(kind.spec()).isEqualTo(limit.kind());
    assertThat(LimitKind.named(kind.spec())).isSameAs(kind);
    assertThat(kind.storeParameters(limit)).hasSize(5);
    if (kind.inPlace()) {
      assertThat(kind.word(limit)).isNotNull();
      assertThatThrownBy(() -> kind.object(limit)).isInstanceOf(IllegalArgumentException.class);
    } else {
      assertThat(kind.object(limit)).isNotNull();
      assertThatThrownBy(() -> kind.word(limit)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void all_listsTheKindsInTheOrderErrorsName() {
    assertThat(LimitKind.all()).extracting(LimitKind::spec)
        .containsExactly("token-bucket", "gcra", "fixed-window", "sliding-window", "sliding-log", "quota");
    assertThat(LimitKind.named("leaky-bucket")).isNull();
  }

  @Test
  void perShard_splitsRateCapacityAndReserve() {
    TokenBucket limit = Limit.tokenBucket(8, java.time.Duration.ofMinutes(1)).withMaxReserved(4).withShards(4);

    assertThat(LimitKind.of(limit).perShard(limit, 4))
        .isEqualTo(new TokenBucket(2, java.time.Duration.ofMinutes(1), 2, 1, 1, null));
    Limit log = Limit.parse("sliding-log rate=4 period=1s");
    assertThatThrownBy(() -> LimitKind.of(log).perShard(log, 2)).hasMessage("sliding-log limits can't be sharded");
  }

  @Test
  void storeParameters_areTheScriptsFiveValues() {
    assertThat(LimitKind.of(Limit.parse("token-bucket rate=10 period=1m")).storeParameters(Limit.parse("10/1m")))
        .containsExactly(10.0, 60_000L, 10.0, Double.POSITIVE_INFINITY, 0L);
    Limit quota = Limit.parse("quota rate=100 cadence=day offset=+02:00");
    assertThat(LimitKind.of(quota).storeParameters(quota)).containsExactly(100.0, "day", 7_200_000L, 0L, 0L);
    Limit window = Limit.parse("sliding-window rate=5 period=1s buckets=4");
    assertThat(LimitKind.of(window).storeParameters(window)).containsExactly(5.0, 1000L, 4L, 0L, 0L);
  }

  /** Keys stored before the descriptor existed keep their fingerprints: old state is not misread as fresh. */
  @Test
  void fingerprint_isSha256OfTheKindItsParametersAndItsAlignment() {
    Limit bucket = Limit.parse("token-bucket rate=10 period=1m");
    assertThat(LimitKind.of(bucket).fingerprint(bucket, new String[] {"10", "60000", "10", "-1", "0"}))
        .isEqualTo("05324880");
    FixedWindow random = ((FixedWindow) Limit.parse("fixed-window rate=5 period=1s")).withRandomPhase();
    assertThat(LimitKind.of(random).fingerprint(random, new String[] {"5", "1000", "5", "-1", "0"}))
        .isEqualTo("6baec946");
    FixedWindow started = ((FixedWindow) Limit.parse("fixed-window rate=5 period=1s"))
        .withStart(Instant.ofEpochMilli(1_767_225_600_000L));
    assertThat(LimitKind.of(started).fingerprint(started, new String[] {"5", "1000", "5", "-1", "0"}))
        .isEqualTo("173feff4");
  }

  @Test
  void windowOffset_isTheStartModuloThePeriod_orTheKeysOwnPhase() {
    FixedWindow started = ((FixedWindow) Limit.parse("fixed-window rate=5 period=1h"))
        .withStart(Instant.parse("2026-01-01T00:20:00Z"));
    LimitKind kind = LimitKind.of(started);
    assertThat(kind.windowOffset(started, "any")).isEqualTo(20 * 60_000L);
    assertThat(kind.offsetPerKey(started)).isFalse();
    assertThat(kind.windowMillis(started)).isEqualTo(3_600_000L);

    FixedWindow random = started.withRandomPhase();
    assertThat(kind.offsetPerKey(random)).isTrue();
    // FNV-1a of "" is 0x811c9dc5: 0x811c9dc5 / 2^32 of the period
    assertThat(kind.windowOffset(random, "")).isEqualTo((long) Math.floor(0x811c9dc5L / 4294967296.0 * 3_600_000));
    assertThat(kind.windowOffset(random, "u1")).isBetween(0L, 3_599_999L).isNotEqualTo(kind.windowOffset(random, "u2"));

    Limit bucket = Limit.parse("10/1m");
    assertThat(LimitKind.of(bucket).windowOffset(bucket, "k")).isZero();
    assertThat(LimitKind.of(bucket).windowMillis(bucket)).isEqualTo(1);
  }
}

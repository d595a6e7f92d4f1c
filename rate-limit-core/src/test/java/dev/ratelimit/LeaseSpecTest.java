package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.algorithm.LimitKind;
import dev.ratelimit.store.InMemoryStore;
import dev.ratelimit.store.KeySpace;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code lease=N} (docs/design.md §4.3.3, §5): token bucket and GCRA only, checked, written back. */
class LeaseSpecTest {

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra"})
  void spec_readsTheLease_andWritesItBack(String kind) {
    Limit limit = Limit.parse(kind + " rate=1000 period=1s lease=50");
    assertThat(limit).isEqualTo(kind.equals("gcra")
        ? Limit.gcra(1000, Duration.ofSeconds(1)).withLease(50)
        : Limit.tokenBucket(1000, Duration.ofSeconds(1)).withLease(50));
    assertThat(limit.toString()).isEqualTo(kind + " rate=1000 period=1s lease=50");
    assertThat(Limit.parse(limit.toString())).isEqualTo(limit);
    assertThat(Limit.parse(kind + " rate=10 period=1m lease=2.5").toString()).endsWith(" lease=2.5");
    assertThat(Limit.parse(kind + " rate=10 period=1m").toString()).doesNotContain("lease");
  }

  @Test
  void lease_isNotPartOfTheState_soLeasingAndPlainNodesShareKeys() {
    Limit plain = Limit.parse("token-bucket rate=1000 period=1s");
    Limit leased = Limit.parse("token-bucket rate=1000 period=1s lease=50");
    assertThat(LimitKind.sameState(plain, leased)).isTrue();
    String[] written = {"1000", "1000", "1000", "-1"};
    assertThat(LimitKind.of(leased).fingerprint(leased, written)).isEqualTo(LimitKind.of(plain).fingerprint(plain, written));
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "0.0", "-1", "-0.5", "NaN", "Infinity", "1e3", "+5", ".5", "5.", "fifty", "0x10"})
  void spec_rejectsALeaseThatIsNotUnitsAboveZero(String value) {
    String spec = "token-bucket rate=1000 period=1s lease=" + value;
    assertThatThrownBy(() -> Limit.parse(spec))
        .isInstanceOf(InvalidLimitSpecException.class)
        .hasMessage("bad value '" + value + "' for lease in \"" + spec + "\": expected a number of units greater than "
            + "0, at most the capacity, such as 50 (leave it out for no lease)")
        .satisfies(e -> assertThat(((InvalidLimitSpecException) e).token()).isEqualTo("lease=" + value));
  }

  @Test
  void spec_rejectsALeaseLargerThanTheCapacity_orWithTooManyDigits() {
    assertThatThrownBy(() -> Limit.parse("gcra rate=10 period=1s capacity=20 lease=21"))
        .isInstanceOf(InvalidLimitSpecException.class)
        .hasMessageContaining("lease must be 0 (none) or a number from 1e-9 to the capacity 20.0 but was 21.0");
    String huge = "9".repeat(400);
    assertThatThrownBy(() -> Limit.parse("token-bucket rate=10 period=1s lease=" + huge))
        .isInstanceOf(InvalidLimitSpecException.class).hasMessageContaining("but was Infinity");
    assertThatThrownBy(() -> Limit.parse("token-bucket rate=10 period=1s lease=0.0000000001"))
        .isInstanceOf(InvalidLimitSpecException.class).hasMessageContaining("but was 1.0E-10");
    assertThat(Limit.parse("token-bucket rate=10 period=1s lease=10")).isNotNull(); // the whole capacity: allowed
  }

  @Test
  void spec_rejectsALeaseOnOtherKinds_andWithShards() {
    assertThatThrownBy(() -> Limit.parse("fixed-window rate=10 period=1s lease=5"))
        .isInstanceOf(InvalidLimitSpecException.class).hasMessageStartingWith("unknown parameter 'lease'");
    assertThatThrownBy(() -> Limit.parse("sliding-log rate=10 period=1s lease=5"))
        .isInstanceOf(InvalidLimitSpecException.class).hasMessageStartingWith("unknown parameter 'lease'");
    assertThatThrownBy(() -> Limit.parse("token-bucket rate=10 period=1s shards=2 lease=5"))
        .isInstanceOf(InvalidLimitSpecException.class).hasMessageContaining("lease and shards conflict; choose one");
  }

  @Test
  void records_rejectHostileLeases() {
    TokenBucket bucket = Limit.tokenBucket(10, Duration.ofSeconds(1));
    Gcra gcra = Limit.gcra(10, Duration.ofSeconds(1));
    for (double bad : new double[] {-1, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 10.5, 1e-10}) {
      assertThatThrownBy(() -> bucket.withLease(bad)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("lease must be 0 (none)");
      assertThatThrownBy(() -> gcra.withLease(bad)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("lease must be 0 (none)");
    }
    assertThat(bucket.withLease(5).withLease(0)).isEqualTo(bucket);
    assertThatThrownBy(() -> bucket.withLease(5).withShards(2)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> bucket.withLease(5).withCapacity(4)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void inMemory_theLeaseChangesNothing() {
    ManualClock clock = new ManualClock(0);
    InMemoryStore store = new InMemoryStore(clock);
    KeySpace leased = store.bind("leased", Limit.parse("token-bucket rate=10 period=1m lease=5"));
    KeySpace plain = store.bind("plain", Limit.parse("token-bucket rate=10 period=1m"));
    for (int i = 0; i < 12; i++) {
      Decision a = leased.apply("k", Operation.LIMIT, 1, 0);
      Decision b = plain.apply("k", Operation.LIMIT, 1, 0);
      assertThat(a).isEqualTo(b);
      clock.advance(Duration.ofMillis(700));
    }
  }
}

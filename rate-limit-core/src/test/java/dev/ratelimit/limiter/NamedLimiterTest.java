package dev.ratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.Concurrently;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A limit's name looked up once: the same decisions, on the same state, as by name. */
class NamedLimiterTest {
  private final ManualClock clock = ManualClock.at(Instant.parse("2026-03-01T12:00:00Z"));
  private final RateLimiter limiter = RateLimiter.builder().clock(clock)
      .limit("api", "token-bucket rate=10 period=1m")
      .plan("pro", "api", "token-bucket rate=20 period=1m")
      .limit("login", "fixed-window rate=3 period=15m")
      .build();

  @Test
  void namedAndByName_decideOnOneStatePerKey() {
    NamedLimiter api = limiter.named("api");
    for (int i = 0; i < 5; i++) {
      assertThat(api.limit("alice").allowed()).isTrue();
      assertThat(limiter.limit("api", "alice", 1).allowed()).isTrue();
    }
    assertThat(api.limit("alice").allowed()).isFalse();
    assertThat(limiter.limit("api", "alice", 1)).isEqualTo(api.check("alice", 1));
    assertThat(api.limit("bob", 10).remaining()).isEqualTo(0);
    assertThat(limiter.named("login").limit("alice").remaining()).as("another limit's state").isEqualTo(2);
  }

  @Test
  void checkRefundAndCharge_areTheLimitersOwn() {
    NamedLimiter api = limiter.named("api");
    api.limit("alice", 10);
    assertThat(api.check("alice", 1).allowed()).isFalse();
    assertThat(api.refund("alice", 3).remaining()).isEqualTo(3);
    PendingCharge charge = api.charge(null, "alice", 2);
    assertThat(charge.decision().allowed()).isTrue();
    charge.settle(false); // gives its 2 back
    assertThat(limiter.check("api", "alice", 1).remaining()).isEqualTo(3);
    clock.advance(Duration.ofSeconds(6)); // one unit back
    assertThat(api.limitAsync(null, "alice", 4).toCompletableFuture().join().allowed()).isTrue();
    assertThat(api.limit("alice").allowed()).isFalse();
  }

  @Test
  void plans_areDecidedUnderTheirSpec_andAnUnknownPlanUnderTheDefault() {
    NamedLimiter api = limiter.named("api");
    assertThat(api.limit("pro", "carol", 20).allowed()).isTrue();
    assertThat(limiter.limit("api", "pro", "carol", 1).allowed()).isFalse();
    assertThat(api.limit("gold", "dave", 10).allowed()).as("unknown plan: the default's 10").isTrue();
    assertThat(api.limit("gold", "dave", 1)).isEqualTo(limiter.limit("api", "dave", 1));
    assertThat(api.limit("dave", 1).allowed()).isFalse();
  }

  @Test
  void followsTheLimit_whenItIsReplacedAtRuntime() {
    NamedLimiter api = limiter.named("api");
    api.limit("alice", 10);
    Limit before = limiter.replace("api", "token-bucket rate=30 period=1m");
    assertThat(before.capacity()).isEqualTo(10);
    Decision after = api.limit("alice", 1);
    assertThat(after.allowed()).as("10 used of 30").isTrue();
    assertThat(after.limit()).isEqualTo(30);
    assertThat(api.toString()).contains("rate=30");
  }

  @Test
  void unknownNames_andBadInput_failAsTheLimiterDoes() {
    assertThatThrownBy(() -> limiter.named("apii")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown limit 'apii'; configured limits: api, login");
    assertThatThrownBy(() -> limiter.named(null)).isInstanceOf(IllegalArgumentException.class);
    NamedLimiter api = limiter.named("api");
    assertThatThrownBy(() -> api.limit(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("key");
    assertThatThrownBy(() -> api.limit("k", -1)).hasMessage("count must be a finite number, 0 or more, but was -1.0 "
        + "(limit 'api')");
    assertThatThrownBy(() -> api.limit("k", 11)).hasMessageContaining("above the capacity, 10");
    String huge = "k".repeat(1_000_000);
    api.limit(huge, 10);
    assertThat(limiter.limit("api", huge, 1).allowed()).as("a huge key, hashed alike both ways").isFalse();
    assertThat(api.name()).isEqualTo("api");
  }

  @Test
  void manyThreads_namedAndByName_admitExactlyTheCapacity() throws Exception {
    RateLimiter hot = RateLimiter.builder().clock(clock).limit("hot", "token-bucket rate=1000 period=1h").build();
    NamedLimiter named = hot.named("hot");
    AtomicInteger admitted = new AtomicInteger();
    AtomicInteger turn = new AtomicInteger();
    Concurrently.run(8, () -> {
      boolean byName = turn.getAndIncrement() % 2 == 0;
      for (int i = 0; i < 500; i++) {
        Decision d = byName ? hot.limit("hot", "k", 1) : named.limit("k");
        if (d.allowed()) {
          admitted.incrementAndGet();
        }
      }
      return null;
    });
    assertThat(admitted.get()).isEqualTo(1000);
  }
}

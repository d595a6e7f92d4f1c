package dev.ratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.Concurrently;
import dev.ratelimit.store.InMemoryStore;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A limit's name looked up once: the same decisions, on the same state, as looked up per call. */
class NamedLimiterTest {
  private final ManualClock clock = ManualClock.at(Instant.parse("2026-03-01T12:00:00Z"));
  private final RateLimiter limiter = RateLimiter.builder().clock(clock)
      .limit("api", "token-bucket rate=10 period=1m")
      .onPlan("pro").limit("api", "token-bucket rate=20 period=1m")
      .limit("login", "fixed-window rate=3 period=15m")
      .build();

  @Test
  void namedAndByName_decideOnOneStatePerKey() {
    NamedLimiter api = limiter.named("api");
    for (int i = 0; i < 5; i++) {
      assertThat(api.limit("alice").allowed()).isTrue();
      assertThat(limiter.named("api").limit("alice", 1).allowed()).isTrue();
    }
    assertThat(api.limit("alice").allowed()).isFalse();
    assertThat(limiter.named("api").limit("alice", 1)).isEqualTo(api.check("alice", 1));
    assertThat(api.limit("bob", 10).remaining()).isEqualTo(0);
    assertThat(limiter.named("login").limit("alice").remaining()).as("another limit's state").isEqualTo(2);
  }

  @Test
  void checkRefundAndCharge_areTheLimitersOwn() {
    NamedLimiter api = limiter.named("api");
    api.limit("alice", 10);
    assertThat(api.check("alice", 1).allowed()).isFalse();
    assertThat(api.refund("alice", 3).remaining()).isEqualTo(3);
    PendingCharge charge = api.onPlan(null).charge("alice", 2);
    assertThat(charge.decision().allowed()).isTrue();
    charge.settle(false); // gives its 2 back
    assertThat(limiter.named("api").check("alice", 1).remaining()).isEqualTo(3);
    clock.advance(Duration.ofSeconds(6)); // one unit back
    assertThat(api.limitAsync("alice", 4).toCompletableFuture().join().allowed()).isTrue();
    assertThat(api.limit("alice").allowed()).isFalse();
  }

  @Test
  void plans_areDecidedUnderTheirSpec_andAnUnknownPlanUnderTheDefault() {
    NamedLimiter api = limiter.named("api");
    NamedLimiter pro = api.onPlan("pro");
    assertThat(pro.limit("carol", 20).allowed()).isTrue();
    assertThat(limiter.named("api").onPlan("pro").limit("carol", 1).allowed()).isFalse();
    assertThat(api.onPlan("gold").limit("dave", 10).allowed()).as("unknown plan: the default's 10").isTrue();
    assertThat(api.onPlan("gold").limit("dave", 1)).isEqualTo(limiter.named("api").limit("dave", 1));
    assertThat(api.limit("dave", 1).allowed()).isFalse();
    assertThat(api.onPlan(null)).as("no plan: the default plan").isEqualTo(api);
    assertThat(pro.onPlan(null).limit("erin", 10).allowed()).isTrue();
    assertThat(pro.onPlan(null).limit("erin", 1).allowed()).as("the default's 10, not pro's 20").isFalse();
    assertThat(pro.plan()).isEqualTo("pro");
    assertThat(pro.name()).isEqualTo("api");
  }

  @Test
  void followsTheLimit_whenItIsReplacedAtRuntime() {
    NamedLimiter api = limiter.named("api");
    api.limit("alice", 10);
    Limit before = limiter.named("api").replace("token-bucket rate=30 period=1m");
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
    assertThat(limiter.named("api").limit(huge, 1).allowed()).as("a huge key, hashed alike both ways").isFalse();
    assertThat(api.name()).isEqualTo("api");
  }

  @Test
  void admit_followsRefillAndNewKeys_asLimitDoes() {
    ManualClock time = ManualClock.at(Instant.parse("2026-03-01T12:00:00Z"));
    RateLimiter byAdmit = RateLimiter.builder().clock(time).limit("api", "token-bucket rate=10 period=1m").build();
    RateLimiter byLimit = RateLimiter.builder().clock(time).limit("api", "token-bucket rate=10 period=1m").build();
    NamedLimiter api = byAdmit.named("api");
    java.util.Random random = new java.util.Random(16);
    int admitted = 0;
    for (int i = 0; i < 20_000; i++) {
      String key = "k" + random.nextInt(100);
      double count = random.nextInt(4);
      boolean answer = api.admit(key, count);
      assertThat(answer).as("call %d on %s for %s", i, key, count).isEqualTo(byLimit.named("api").limit(key, count).allowed());
      admitted += answer ? 1 : 0;
      if (random.nextInt(8) == 0) {
        time.advance(Duration.ofMillis(random.nextInt(150)));
      }
    }
    assertThat(admitted).as("both admitted and denied").isBetween(1_000, 19_000);
  }

  @Test
  void admit_onMillionsOfDistinctKeys_keepsTheStoreBounded() {
    InMemoryStore store = new InMemoryStore(clock, 1_000);
    NamedLimiter api = RateLimiter.builder().clock(clock).store(store).limit("api", "token-bucket rate=1 period=1h")
        .build().named("api");
    boolean[] first = new boolean[1_000_000];
    int admitted = 0;
    for (int i = 0; i < first.length; i++) {
      first[i] = api.admit("flood-" + i);
      admitted += first[i] ? 1 : 0;
    }
    assertThat(store.size()).isLessThanOrEqualTo(1_000);
    // once the store is full, evicted keys' usage (kept in a sketch) denies many new ones: never
    // one admitted twice, which is what the first keys, evicted long since, show
    assertThat(admitted).as("the first 1,000 keys fit").isGreaterThanOrEqualTo(1_000);
    for (int i = 0; i < 2_000; i++) {
      if (first[i]) {
        assertThat(api.admit("flood-" + i)).as("flood-%d again within the hour", i).isFalse();
      }
    }
  }

  @Test
  void admit_isHeardByListeners_andDecidedByShadowAndShardedLimitsAsLimit() {
    java.util.List<Decision> heard = new java.util.ArrayList<>();
    RateLimiter observed = RateLimiter.builder().clock(clock)
        .listener((name, decision, fallback) -> heard.add(decision))
        .limit("api", "token-bucket rate=2 period=1m")
        .limit("shadow", "token-bucket rate=1 period=1m mode=shadow")
        .limit("sharded", "token-bucket rate=4 period=1m shards=2")
        .build();
    NamedLimiter api = observed.named("api");
    assertThat(api.admit("k")).isTrue();
    assertThat(api.admit("k")).isTrue();
    assertThat(api.admit("k")).isFalse();
    assertThat(heard).extracting(Decision::allowed).containsExactly(true, true, false);
    assertThat(heard.get(2).retryAfterMillis()).as("the listener hears the whole decision").isEqualTo(30_000);
    NamedLimiter shadow = observed.named("shadow");
    assertThat(shadow.admit("k")).isTrue();
    assertThat(shadow.admit("k")).as("a shadow limit never denies").isTrue();
    NamedLimiter sharded = observed.named("sharded");
    int admitted = 0;
    for (int i = 0; i < 10; i++) {
      boolean answer = sharded.admit("k");
      assertThat(answer).as("call %d", i).isEqualTo(observed.named("sharded").limit("j", 1).allowed());
      admitted += answer ? 1 : 0;
    }
    assertThat(admitted).as("the two shards' 2 + 2").isEqualTo(4);
  }

  @Test
  void admit_followsAReplacedLimit_andRefusesBadInputAsLimit() {
    NamedLimiter api = limiter.named("api");
    assertThat(api.admit("alice", 10)).isTrue();
    assertThat(api.admit("alice")).isFalse();
    limiter.named("api").replace("token-bucket rate=30 period=1m");
    assertThat(api.admit("alice", 20)).as("10 used of 30").isTrue();
    assertThat(api.admit("alice")).isFalse();
    assertThatThrownBy(() -> api.admit(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("key");
    assertThatThrownBy(() -> api.admit("k", -1)).hasMessage("count must be a finite number, 0 or more, but was -1.0 "
        + "(limit 'api')");
    assertThatThrownBy(() -> api.admit("k", Double.NaN)).hasMessageContaining("count must be a finite number");
    assertThatThrownBy(() -> api.admit("k", 31)).hasMessageContaining("above the capacity, 30");
    String huge = "k".repeat(1_000_000);
    assertThat(api.admit(huge, 30)).isTrue();
    assertThat(limiter.named("api").limit(huge, 1).allowed()).as("a huge key, hashed alike both ways").isFalse();
  }

  @Test
  void onPlan_keptInAField_followsThePlansReplacement_andReplaceOnAnUnknownPlanIsRefused() {
    NamedLimiter pro = limiter.named("api").onPlan("pro");
    assertThat(pro.limit("carol", 20).allowed()).isTrue();
    Limit before = limiter.named("api").onPlan("pro").replace("token-bucket rate=25 period=1m");
    assertThat(before.capacity()).isEqualTo(20);
    assertThat(pro.limit("carol", 5).allowed()).as("20 used of 25").isTrue();
    assertThat(limiter.named("api").limit("dave", 10).allowed()).as("the default plan unchanged").isTrue();
    assertThatThrownBy(() -> limiter.named("api").onPlan("gold").replace("token-bucket rate=1 period=1m"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("limit 'api' has no plan 'gold'; its plans: pro");
    assertThat(limiter.limits().get("api").capacity()).isEqualTo(10);
  }

  @Test
  void reset_onAnyPlan_forgetsTheKeyUnderEveryPlan() {
    NamedLimiter api = limiter.named("api");
    api.limit("alice", 10);
    api.onPlan("pro").limit("bob", 20);
    api.onPlan("pro").reset("alice");
    api.resetAsync("bob").toCompletableFuture().join();
    assertThat(api.check("alice", 10).allowed()).isTrue();
    assertThat(api.onPlan("pro").check("bob", 20).allowed()).isTrue();
  }

  @Test
  void call_belongsToItsLimiter_andAnotherLimiterRefusesIt() {
    RateLimiter other = RateLimiter.builder().clock(clock).limit("api", "token-bucket rate=10 period=1m").build();
    NamedLimiter.Call call = limiter.named("api").onPlan("pro").call("alice", 3);
    assertThat(call.limit()).isEqualTo("api");
    assertThat(call.plan()).isEqualTo("pro");
    assertThat(call.key()).isEqualTo("alice");
    assertThat(call.count()).isEqualTo(3);
    assertThat(call).isEqualTo(limiter.named("api").onPlan("pro").call("alice", 3))
        .isNotEqualTo(other.named("api").onPlan("pro").call("alice", 3))
        .isNotEqualTo(limiter.named("api").call("alice", 3));
    assertThat(call.toString()).doesNotContain("alice");
    assertThatThrownBy(() -> other.limitAll(call)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("another RateLimiter");
    assertThatThrownBy(() -> other.acquireAll(java.util.List.of(call), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(other.named("api").check("alice", 10).allowed()).as("nothing taken").isTrue();
    assertThatThrownBy(() -> limiter.named("api").call(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void topKeys_countUnderEveryPlan_andAreRefusedWhenNotTracked() {
    RateLimiter tracked = RateLimiter.builder().clock(clock).trackTopKeys(8, Duration.ofMinutes(1))
        .limit("api", "token-bucket rate=10 period=1m").onPlan("pro").limit("api", "token-bucket rate=20 period=1m").build();
    tracked.named("api").limit("alice", 4);
    tracked.named("api").onPlan("pro").limit("alice", 5);
    assertThat(tracked.named("api").onPlan("pro").topKeys(5)).containsExactly(new NamedLimiter.TopKey("alice", 9, 0, 0));
    assertThatThrownBy(() -> tracked.named("api").topKeys(-1)).hasMessage("max must be 0 or more but was -1");
    assertThatThrownBy(() -> limiter.named("api").topKeys(5)).isInstanceOf(IllegalStateException.class);
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
        Decision d = byName ? hot.named("hot").limit("k", 1) : named.limit("k");
        if (d.allowed()) {
          admitted.incrementAndGet();
        }
      }
      return null;
    });
    assertThat(admitted.get()).isEqualTo(1000);
  }
}

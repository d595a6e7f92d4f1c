package dev.ratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.ratelimit.Decision;
import dev.ratelimit.DecisionListener;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.ManualClock;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.contract.Concurrently;
import dev.ratelimit.contract.SwitchableStore;
import dev.ratelimit.store.InMemoryStore;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link PendingCharge#settleActual}: a charge taken as an estimate, settled with what the call
 * really cost (docs/design.md §2.7); {@link NamedLimiter#take}, the store operation behind the part
 * above the estimate. What every store must do is in the store contract; here the limiter's part:
 * once, bad counts, failure policies, shards, plans, replacements, listeners.
 */
class SettleActualTest {
  private final ManualClock clock = new ManualClock(1_767_225_600_000L);

  private RateLimiter limiter(String spec) {
    return RateLimiter.builder().clock(clock).limit("tokens", spec).build();
  }

  @Test
  void settleActual_belowTheEstimate_givesTheDifferenceBack_neverAboveTheCapacity() {
    RateLimiter limiter = limiter("token-bucket rate=10 period=1s");
    PendingCharge charge = limiter.named("tokens").charge("u", 4);
    assertThat(charge.decision().remaining()).isEqualTo(6);
    clock.advance(Duration.ofMillis(300)); // 3 back: 9
    assertThat(charge.settleActual(1).remaining()).as("3 of the 4 back, capped at 10").isEqualTo(10);
  }

  @Test
  void settleActual_aboveTheEstimate_takesTheRestIntoDebt_andLaterCallsWait() {
    RateLimiter limiter = limiter("token-bucket rate=10 period=1s");
    PendingCharge charge = limiter.named("tokens").charge("u", 5);
    Decision settled = charge.settleActual(12);
    assertThat(settled.remaining()).isEqualTo(-2);
    assertThat(settled.allowed()).as("in debt").isFalse();
    assertThat(settled.retryAfterMillis()).as("out of debt after 2 units' refill").isEqualTo(200);
    Decision next = limiter.named("tokens").limit("u", 1);
    assertThat(next.allowed()).isFalse();
    assertThat(next.retryAfterMillis()).as("the debt and the unit").isEqualTo(300);
    clock.advance(Duration.ofMillis(299));
    assertThat(limiter.named("tokens").limit("u", 1).allowed()).isFalse();
    clock.advance(Duration.ofMillis(1));
    assertThat(limiter.named("tokens").limit("u", 1).allowed()).isTrue();
  }

  @Test
  void settleActual_equalToTheEstimate_keepsTheCharge_withoutAskingTheStore() {
    SwitchableStore store = new SwitchableStore(new InMemoryStore(clock));
    RateLimiter limiter = RateLimiter.builder().clock(clock).store(store).storeFailure(FailurePolicy.CLOSED)
        .limit("tokens", "token-bucket rate=10 period=1s").build();
    PendingCharge charge = limiter.named("tokens").charge("u", 3);
    int calls = store.calls();
    assertThat(charge.settleActual(3)).isSameAs(charge.decision());
    assertThat(store.calls()).isEqualTo(calls);
    assertThat(limiter.named("tokens").check("u", 0).remaining()).isEqualTo(7);
  }

  @Test
  void settleActual_settlesOnce_withEitherWayOfSettling() {
    RateLimiter limiter = limiter("fixed-window rate=10 period=1h");
    PendingCharge first = limiter.named("tokens").charge("u", 2);
    first.settleActual(7);
    first.settleActual(0);
    first.settle(false);
    first.refund();
    assertThat(first.settleActualAsync(1).toCompletableFuture().join()).isSameAs(first.decision());
    assertThat(limiter.named("tokens").check("u", 0).remaining()).isEqualTo(3);

    PendingCharge second = limiter.named("tokens").charge("u", 2);
    second.settle(false);
    assertThat(second.settleActual(9)).as("settled by outcome already").isSameAs(second.decision());
    assertThat(limiter.named("tokens").check("u", 0).remaining()).isEqualTo(3);
  }

  @Test
  void settleActual_onAChargeThatTookNothing_movesNothing() {
    RateLimiter limiter = RateLimiter.builder().clock(clock).limit("tokens", "fixed-window rate=10 period=1h")
        .limit("watch", "fixed-window rate=1 period=1h mode=shadow").build();
    limiter.named("tokens").limit("u", 9);
    PendingCharge denied = limiter.named("tokens").charge("u", 2);
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.settleActual(100)).isSameAs(denied.decision());
    assertThat(limiter.named("tokens").check("u", 0).remaining()).isEqualTo(1);

    limiter.named("watch").limit("u", 1);
    PendingCharge shadowDenied = limiter.named("watch").charge("u", 1);
    assertThat(shadowDenied.allowed()).as("a shadow limit never denies").isTrue();
    shadowDenied.settleActual(50);
    assertThat(limiter.named("watch").check("u", 0).remaining()).as("it took nothing, it takes nothing").isZero();

    PendingCharge shadowAdmitted = limiter.named("watch").charge("v", 1);
    assertThat(shadowAdmitted.settleActual(3).remaining())
        .as("a shadow limit is charged as if enforced: one capacity deep at most").isEqualTo(-1);
  }

  @ParameterizedTest
  @ValueSource(doubles = {-1, -0.001, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY})
  void settleActual_refusesACountThatIsNotAFiniteNumberOfUnits_andTheChargeStaysOpen(double bad) {
    RateLimiter limiter = limiter("token-bucket rate=10 period=1h");
    PendingCharge charge = limiter.named("tokens").charge("u", 4);
    assertThatThrownBy(() -> charge.settleActual(bad)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("actual count must be a finite number, 0 or more, but was " + bad + " (limit 'tokens')");
    assertThatThrownBy(() -> charge.settleActualAsync(bad)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limit 'tokens'");
    assertThatThrownBy(() -> limiter.named("tokens").take("u", bad)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("take count must be a finite number, 0 or more, but was " + bad + " (limit 'tokens')");
    assertThat(limiter.named("tokens").check("u", 0).remaining()).as("nothing changed").isEqualTo(6);
    assertThat(charge.settleActual(1).remaining()).as("still open").isEqualTo(9);
  }

  @ParameterizedTest
  @ValueSource(doubles = {1e308, Long.MAX_VALUE, Double.MAX_VALUE, 1e15})
  void settleActual_aHugeCount_isBoundedByOneCapacityOfDebt_andTheKeyComesBack(double huge) {
    RateLimiter limiter = limiter("gcra rate=10 period=1s");
    PendingCharge charge = limiter.named("tokens").charge("u", 10);
    Decision settled = charge.settleActual(huge);
    assertThat(settled.remaining()).isEqualTo(-10);
    assertThat(settled.retryAfterMillis()).isEqualTo(1000);
    assertThat(settled.resetAfterMillis()).as("two capacities to refill").isEqualTo(2000);
    clock.advance(Duration.ofSeconds(2));
    assertThat(limiter.named("tokens").check("u", 10).allowed()).isTrue();
  }

  @Test
  void take_onAFixedWindow_carriesItsDebtIntoTheNextWindows() {
    RateLimiter limiter = limiter("fixed-window rate=10 period=1m");
    clock.setMillis(1_767_225_600_000L); // a window start
    assertThat(limiter.named("tokens").take("u", 25).remaining()).as("one capacity deep at most").isEqualTo(-10);
    clock.advance(Duration.ofMinutes(1));
    assertThat(limiter.named("tokens").check("u", 0).remaining()).isZero();
    assertThat(limiter.named("tokens").limit("u", 1).allowed()).isFalse();
    clock.advance(Duration.ofMinutes(1));
    assertThat(limiter.named("tokens").limit("u", 10).allowed()).isTrue();
  }

  /**
   * A fractional rate leaves a reserved key a hair off its debt bound; a take there must take
   * nothing and write nothing, or the window it wrote would begin a fresh count.
   */
  @Test
  void take_atTheDebtBoundButForFloatNoise_takesNothing_andKeepsTheWindow() {
    ManualClock clock = new ManualClock(1_600_000_000_502L);
    RateLimiter limiter = RateLimiter.builder().clock(clock)
        .limit("tokens", "fixed-window rate=0.51 period=1s start=1970-01-01T00:00:00.101Z").build();
    limiter.named("tokens").limit("u", 0);
    limiter.named("tokens").limit("u", 0);
    clock.advanceMillis(1_248);
    limiter.named("tokens").limit("u", 0);
    clock.advanceMillis(2_000);
    assertThat(limiter.named("tokens").reserve("u", 1.53).allowed()).isTrue();
    clock.advanceMillis(101);
    limiter.named("tokens").limit("u", 0);
    clock.advanceMillis(20);
    limiter.named("tokens").limit("u", 0);
    clock.advanceMillis(230); // a new window: half the debt is left, one capacity, the bound
    assertThat(limiter.named("tokens").take("u", 1.0).remaining()).isCloseTo(-0.51, within(1e-9));
    clock.advanceMillis(-1_000);
    assertThat(limiter.named("tokens").reserve("u", 0).remaining())
        .as("the reservation's debt, unchanged by the take")
        .isCloseTo(-1.02, within(1e-9));
  }

  @Test
  void take_onASlidingLog_countsAboveTheRateUntilItSlidesOut() {
    RateLimiter limiter = limiter("sliding-log rate=10 period=1m");
    limiter.named("tokens").limit("u", 4);
    clock.advance(Duration.ofSeconds(30));
    assertThat(limiter.named("tokens").take("u", 9).remaining()).isEqualTo(-3);
    Decision denied = limiter.named("tokens").limit("u", 1);
    assertThat(denied.retryAfterMillis()).as("the first 4 slide out: 1 left").isEqualTo(30_000);
    clock.advance(Duration.ofSeconds(30));
    assertThat(limiter.named("tokens").limit("u", 1).allowed()).isTrue();
    assertThat(limiter.named("tokens").limit("u", 1).allowed()).isFalse();
  }

  /** A take on a key's pending charge under one plan lands on the state every plan of its kind shares. */
  @Test
  void settleActual_onAPlan_settlesTheSharedState() {
    RateLimiter limiter = RateLimiter.builder().clock(clock).limit("tokens", "token-bucket rate=10 period=1h")
        .onPlan("pro").limit("tokens", "token-bucket rate=100 period=1h").build();
    limiter.named("tokens").onPlan("pro").charge("u", 10).settleActual(95);
    assertThat(limiter.named("tokens").onPlan("pro").check("u", 0).remaining()).isEqualTo(5);
    assertThat(limiter.named("tokens").check("u", 0).remaining()).as("95 used, capped by 10").isZero();
  }

  @Test
  void settleActual_afterTheLimitWasReplaced_reachesTheStatesNewHome() {
    RateLimiter limiter = limiter("token-bucket rate=10 period=1h");
    PendingCharge charge = limiter.named("tokens").charge("u", 2);
    limiter.named("tokens").replace("token-bucket rate=20 period=1h");
    assertThat(charge.settleActual(6).remaining()).as("20 − 6").isEqualTo(14);
    assertThat(limiter.named("tokens").check("u", 0).remaining()).isEqualTo(14);
  }

  @Test
  void settleActual_onShards_takesFromTheShardsLookedAt_andBeyondThemFromTheOthers() {
    RateLimiter two = limiter("token-bucket rate=10 period=1h shards=2");
    PendingCharge charge = two.named("tokens").charge("u", 4);
    assertThat(charge.settleActual(13).remaining()).as("two shards: the whole key").isCloseTo(-3, within(1e-9));
    assertThat(two.named("tokens").limit("u", 0).allowed()).isFalse();
    assertThat(two.named("tokens").check("u", 0).allowed()).as("a check of 0 reveals the debt too").isFalse();

    RateLimiter four = limiter("token-bucket rate=20 period=1h shards=4");
    four.named("tokens").take("u", 1e12);
    for (int i = 0; i < 20; i++) {
      Decision check = four.named("tokens").check("u", 0);
      assertThat(check.remaining()).as("every shard one share deep, whichever two are read")
          .isCloseTo(-20, within(1e-9));
      assertThat(check.allowed()).isFalse();
      assertThat(check.retryAfterMillis()).as("a share out of debt: 5 units at 5 an hour").isEqualTo(3_600_000);
    }
  }

  /**
   * Threads charge a sharded key and settle at or above the estimate: the shards used exactly the
   * sum of the actual counts admitted (two shards: a check reads the whole key).
   */
  @Test
  void concurrentSettlements_onShards_useExactlyTheActualCounts() throws Exception {
    RateLimiter limiter = limiter("token-bucket rate=1000 period=365d shards=2");
    AtomicLong used = new AtomicLong();
    AtomicInteger seeds = new AtomicInteger();
    Concurrently.run(4, () -> {
      Random random = new Random(seeds.incrementAndGet());
      for (int i = 0; i < 2_000; i++) {
        int estimate = random.nextInt(6);
        PendingCharge charge = limiter.named("tokens").charge("hot", estimate);
        int actual = estimate + random.nextInt(10);
        charge.settleActual(actual);
        if (charge.allowed()) {
          used.addAndGet(actual);
        }
      }
      return null;
    });
    assertThat(used.get()).isGreaterThan(1000);
    assertThat(limiter.named("tokens").check("hot", 0).remaining()).isCloseTo(1000 - used.get(), within(1e-6));
  }

  @Test
  void settlements_areNotHeardByTheListener() {
    List<Decision> heard = new CopyOnWriteArrayList<>();
    DecisionListener listener = (limit, decision, fallback) -> heard.add(decision);
    RateLimiter limiter = RateLimiter.builder().clock(clock).listener(listener)
        .limit("tokens", "token-bucket rate=10 period=1h").build();
    PendingCharge charge = limiter.named("tokens").charge("u", 3);
    charge.settleActual(8);
    limiter.named("tokens").take("u", 1);
    assertThat(heard).as("the charge only").containsExactly(charge.decision());
  }

  @Test
  void settleActual_whileTheStoreIsDown_followsThePolicyAsARefundDoes() {
    SwitchableStore store = new SwitchableStore(new InMemoryStore(clock));
    RateLimiter open = RateLimiter.builder().clock(clock).store(store).storeFailure(FailurePolicy.OPEN)
        .limit("tokens", "token-bucket rate=10 period=365d")
        .limit("local", "token-bucket rate=10 period=365d failure=local").build();
    PendingCharge above = open.named("tokens").charge("u", 2);
    PendingCharge below = open.named("tokens").charge("u", 2);
    PendingCharge local = open.named("local").charge("u", 2);
    store.switchOff();
    assertThatThrownBy(() -> above.settleActual(5)).as("nothing to admit: a take fails under open")
        .isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> below.settleActual(0)).isInstanceOf(StoreUnavailableException.class);
    assertThat(local.settleActual(14).remaining()).as("12 more on the local store, fresh").isCloseTo(-2, within(1e-6));
    PendingCharge admittedByPolicy = open.named("tokens").charge("u", 2);
    assertThat(admittedByPolicy.allowed()).isTrue();
    store.switchOn();
    clock.advance(Duration.ofSeconds(2));
    assertThat(admittedByPolicy.settleActual(9)).as("the open policy took nothing").isSameAs(admittedByPolicy.decision());
    assertThat(open.named("tokens").check("u", 0).remaining()).as("both charges stayed as taken").isCloseTo(6, within(1e-6));
  }

  @Test
  void chargeAsync_decidesAsCharge_andSettlesAsync() {
    RateLimiter limiter = limiter("token-bucket rate=10 period=1h");
    PendingCharge charge = limiter.named("tokens").chargeAsync("u", 7).toCompletableFuture().join();
    assertThat(charge.decision().remaining()).isEqualTo(3);
    assertThat(charge.settleActualAsync(10).toCompletableFuture().join().remaining()).isZero();
    assertThat(limiter.named("tokens").chargeAsync("u", 1).toCompletableFuture().join().allowed()).isFalse();
    assertThat(limiter.named("tokens").takeAsync("u", 4).toCompletableFuture().join().remaining()).isEqualTo(-4);
  }
}

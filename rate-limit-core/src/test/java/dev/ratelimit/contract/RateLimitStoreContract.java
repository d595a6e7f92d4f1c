package dev.ratelimit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.limiter.Decisions;
import dev.ratelimit.limiter.NamedLimiter;
import dev.ratelimit.limiter.PendingCharge;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.RateLimitStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What every store must do, whatever keeps its state. A store's test extends this and only
 * builds the store; the conformance vectors run against it line by line, and the concurrency
 * claims are checked with many threads and exact counts.
 *
 * <p>Limits whose refill must not matter use periods of a year, so a store on a real clock
 * (Redis {@code TIME}) passes as well as one on the manual clock.
 */
public abstract class RateLimitStoreContract {
  private static final String YEAR = " period=365d";

  /** A new, empty store reading {@code clock} (or, for a remote store, its own clock). */
  protected abstract RateLimitStore newStore(ManualClock clock);

  /**
   * Whether this store runs this kind of limit; tests and vectors of the others are skipped.
   * Stores that refuse a kind must do so in {@code bind}, with a message naming the kinds they run.
   */
  protected boolean supports(Limit limit) {
    return true;
  }

  /** Whether a scenario applies to this store: by default, when it supports every limit in it. */
  protected boolean applies(Vectors.Scenario scenario) {
    return scenario.limits().stream().allMatch(line -> supports(Limit.parse(line.substring(line.indexOf('=') + 1))));
  }

  /** Calls per thread in the concurrency tests; remote stores may lower it. */
  protected int callsPerThread() {
    return 100_000;
  }

  protected int threads() {
    return 4;
  }

  /** A limiter on a new store; skips the test when the store doesn't run one of the limits. */
  protected RateLimiter limiter(String... namesAndSpecs) {
    for (int i = 1; i < namesAndSpecs.length; i += 2) {
      Assumptions.assumeTrue(supports(Limit.parse(namesAndSpecs[i])), "store doesn't run " + namesAndSpecs[i]);
    }
    ManualClock clock = new ManualClock(1_767_225_600_000L);
    RateLimiter.Builder builder = RateLimiter.builder().clock(clock).store(newStore(clock));
    for (int i = 0; i < namesAndSpecs.length; i += 2) {
      builder.limit(namesAndSpecs[i], namesAndSpecs[i + 1]);
    }
    return builder.build();
  }

  /**
   * Whether this store carries a key's used units over to a changed limit of its kind
   * (docs/design.md §2.7); a store that can't must refuse the change with a clear error.
   */
  protected boolean carriesStateOver() {
    return true;
  }

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window"})
  void replace_keepsUsedUnits_cappedByTheNewCapacity(String kind) {
    try (RateLimiter limiter = limiter("l", kind + " rate=10" + YEAR)) {
      limiter.named("l").limit("k", 6);
      limiter.named("l").limit("old", 3);
      if (!carriesStateOver()) {
        assertThatThrownBy(() -> limiter.named("l").replace(kind + " rate=20" + YEAR))
            .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("can't carry the keys of limit 'l'");
        assertThat(limiter.named("l").check("k", 0).remaining()).as("nothing changed").isCloseTo(4, within(1e-3));
        return;
      }
      limiter.named("l").replace(kind + " rate=20" + YEAR);
      assertThat(limiter.named("l").check("k", 0).remaining()).as("6 used of 20").isCloseTo(14, within(1e-3));
      assertThat(limiter.named("l").limit("k", 14).allowed()).isTrue();
      assertThat(limiter.named("l").limit("k", 1).allowed()).isFalse();
      limiter.named("l").replace(kind + " rate=4" + YEAR);
      assertThat(limiter.named("l").check("k", 0).remaining()).as("20 used, capped by 4").isCloseTo(0, within(1e-3));
      assertThat(limiter.named("l").check("old", 0).remaining()).as("untouched through two changes: 3 used of 4")
          .isCloseTo(1, within(1e-3));
      assertThat(limiter.named("l").limit("new", 4).allowed()).isTrue();
    }
  }

  /**
   * Decisions on three threads while a fourth replaces the limit back and forth: with the clock
   * frozen no unit is created or lost, so what was admitted plus what is left is what was left
   * before. (In memory a key moving between two spaces was once seen in neither and decided
   * fresh; in Redis a call on the replaced limit read the new limit's value as fresh.)
   */
  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window"})
  void replace_racingDecisions_neverCreatesOrLosesAUnit(String kind) throws Exception {
    Assumptions.assumeTrue(carriesStateOver());
    try (RateLimiter limiter = limiter("l", kind + " rate=1000" + YEAR)) {
      limiter.named("l").limit("k", 500);
      java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
      AtomicInteger admitted = new AtomicInteger();
      List<Callable<Object>> tasks = new java.util.ArrayList<>();
      tasks.add(() -> {
        try {
          for (int i = 0; i < replacements(); i++) {
            limiter.named("l").replace(kind + " rate=1000 period=" + (i % 2 == 0 ? "366d" : "365d"));
          }
        } finally {
          done.set(true);
        }
        return null;
      });
      for (int t = 0; t < 3; t++) {
        tasks.add(() -> {
          while (!done.get()) {
            if (limiter.named("l").limit("k", 1).allowed()) {
              admitted.incrementAndGet();
            }
          }
          return null;
        });
      }
      Concurrently.runAll(tasks);
      assertThat(admitted.get() + limiter.named("l").check("k", 0).remaining()).isCloseTo(500, within(1e-3));
    }
  }

  /** Replacements in {@link #replace_racingDecisions_neverCreatesOrLosesAUnit}; remote stores may lower it. */
  protected int replacements() {
    return 500;
  }

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window", "sliding-window", "sliding-log"})
  void replace_changingOnlyTheMode_keepsEveryKeysState(String kind) {
    try (RateLimiter limiter = limiter("l", kind + " rate=3" + YEAR + " mode=shadow")) {
      limiter.named("l").limit("k", 3);
      assertThat(limiter.named("l").limit("k", 1).allowed()).as("shadow").isTrue();
      limiter.named("l").replace(kind + " rate=3" + YEAR);
      assertThat(limiter.named("l").limit("k", 1).allowed()).as("enforced, on the same state").isFalse();
      assertThat(limiter.named("l").limit("other", 3).allowed()).isTrue();
    }
  }

  @Test
  void replace_changingTheKind_startsFresh() {
    try (RateLimiter limiter = limiter("l", "token-bucket rate=3" + YEAR)) {
      Assumptions.assumeTrue(supports(Limit.parse("fixed-window rate=3" + YEAR)));
      limiter.named("l").limit("k", 3);
      limiter.named("l").replace("fixed-window rate=3" + YEAR);
      assertThat(limiter.named("l").limit("k", 3).allowed()).isTrue();
      assertThat(limiter.named("l").limit("k", 1).allowed()).isFalse();
    }
  }

  private RateLimiter planned(String defaultSpec, String proSpec) {
    ManualClock clock = new ManualClock(1_767_225_600_000L);
    return RateLimiter.builder().clock(clock).store(newStore(clock)).limit("api", defaultSpec).onPlan("pro").limit("api", proSpec)
        .build();
  }

  /** The kinds whose plans share one state per key (docs/design.md §2.7). */
  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window"})
  void plans_shareOneStatePerKey_usedUnitsCappedByThePlansCapacity(String kind) {
    Assumptions.assumeTrue(supports(Limit.parse(kind + " rate=2" + YEAR)));
    if (!carriesStateOver()) {
      assertThatThrownBy(() -> planned(kind + " rate=2" + YEAR, kind + " rate=5" + YEAR))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("limit 'api', plan 'pro'");
      return;
    }
    try (RateLimiter limiter = planned(kind + " rate=2" + YEAR, kind + " rate=5" + YEAR)) {
      assertThat(limiter.named("api").onPlan("pro").limit("alice", 3).remaining()).isCloseTo(2, within(1e-3));
      assertThat(limiter.named("api").check("alice", 0).remaining()).as("a downgrade: 3 used, capped by 2")
          .isCloseTo(0, within(1e-3));
      assertThat(limiter.named("api").limit("alice", 1).allowed()).isFalse();
      assertThat(limiter.named("api").onPlan("pro").check("alice", 0).remaining())
          .as("back up: a check and a denial wrote nothing, so still 3 used of 5").isCloseTo(2, within(1e-3));
      assertThat(limiter.named("api").onPlan("pro").limit("alice", 2).allowed()).isTrue();
      assertThat(limiter.named("api").onPlan("pro").limit("alice", 1).allowed()).isFalse();
      assertThat(limiter.named("api").refund("alice", 1).remaining()).as("a refund writes: 5 used, capped by 2, less 1")
          .isCloseTo(1, within(1e-3));
      assertThat(limiter.named("api").onPlan("pro").check("alice", 0).remaining()).as("1 used of 5").isCloseTo(4, within(1e-3));

      assertThat(limiter.named("api").limit("bob", 1).allowed()).isTrue();
      assertThat(limiter.named("api").onPlan("pro").check("bob", 0).remaining()).as("an upgrade keeps what was used")
          .isCloseTo(4, within(1e-3));
      assertThat(limiter.named("api").onPlan("free").limit("bob", 1).allowed()).as("unknown plan: the default, 1 used of 2")
          .isTrue();
      assertThat(limiter.named("api").limit("bob", 1).allowed()).isFalse();
      assertThat(limiter.limitAll(List.of(limiter.named("api").onPlan("pro").call("bob", 3))).allowed())
          .as("all or nothing on the shared state: 2 used of 5").isTrue();
      assertThat(limiter.named("api").check("bob", 0).remaining()).isCloseTo(0, within(1e-3));

      limiter.named("api").reset("alice");
      assertThat(limiter.named("api").onPlan("pro").check("alice", 5).allowed()).isTrue();
      assertThat(limiter.named("api").check("alice", 2).allowed()).isTrue();
      assertThat(limiter.named("api").onPlan("pro").limit("carol", 0.5).allowed()).as("never seen: fresh under any plan").isTrue();
      assertThat(limiter.named("api").check("dave", 0).remaining()).isCloseTo(2, within(1e-3));
    }
  }

  /**
   * On the manual clock: a key refills at the rate of the plan that last wrote it, read under
   * another plan by that plan's capacity, until that plan writes it.
   */
  @Test
  void plans_aKeyRefillsAtTheRateOfThePlanThatLastWroteIt() {
    Assumptions.assumeTrue(carriesStateOver());
    ManualClock clock = new ManualClock(1_767_225_600_000L);
    try (RateLimiter limiter = RateLimiter.builder().clock(clock).store(newStore(clock))
        .limit("api", "token-bucket rate=2 period=1h").onPlan("pro").limit("api", "token-bucket rate=6 period=1h").build()) {
      assertThat(limiter.named("api").onPlan("pro").limit("k", 6).allowed()).isTrue();
      clock.advance(Duration.ofMinutes(30)); // pro refills 1 per 10 minutes: 3 used
      assertThat(limiter.named("api").check("k", 0).remaining()).as("3 used, capped by 2").isCloseTo(0, within(1e-3));
      clock.advance(Duration.ofMinutes(20)); // still pro's state: 1 used
      assertThat(limiter.named("api").check("k", 0).remaining()).isCloseTo(1, within(1e-3));
      assertThat(limiter.named("api").limit("k", 1).allowed()).as("the default plan writes: 2 used of 2").isTrue();
      clock.advance(Duration.ofMinutes(30)); // the default plan refills 1 per 30 minutes: 1 used
      assertThat(limiter.named("api").onPlan("pro").check("k", 0).remaining()).as("1 used of 6").isCloseTo(5, within(1e-3));
    }
  }

  @Test
  void plans_ofAnotherKind_keepAStateOfTheirOwn() {
    Assumptions.assumeTrue(supports(Limit.parse("fixed-window rate=5" + YEAR)));
    try (RateLimiter limiter = planned("token-bucket rate=2" + YEAR, "fixed-window rate=5" + YEAR)) {
      assertThat(limiter.named("api").onPlan("pro").limit("alice", 5).allowed()).isTrue();
      assertThat(limiter.named("api").onPlan("pro").limit("alice", 1).allowed()).isFalse();
      assertThat(limiter.named("api").limit("alice", 2).allowed()).as("the default plan's state is its own").isTrue();
      assertThat(limiter.named("api").onPlan("free").limit("alice", 1).allowed()).as("unknown plan: the default").isFalse();
      limiter.named("api").reset("alice");
      assertThat(limiter.named("api").onPlan("pro").check("alice", 5).allowed()).as("reset under every plan").isTrue();
      assertThat(limiter.named("api").check("alice", 2).allowed()).isTrue();
    }
  }

  /** A plan replaced by a limit of another kind leaves the shared state for one of its own, fresh. */
  @Test
  void plans_replacedByAnotherKind_leaveTheSharedState() {
    Assumptions.assumeTrue(carriesStateOver() && supports(Limit.parse("fixed-window rate=5" + YEAR)));
    try (RateLimiter limiter = planned("token-bucket rate=2" + YEAR, "token-bucket rate=5" + YEAR)) {
      limiter.named("api").onPlan("pro").limit("alice", 4);
      assertThatThrownBy(() -> limiter.named("api").replace("fixed-window rate=2" + YEAR))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("plan 'pro'");
      limiter.named("api").onPlan("pro").replace(Limit.parse("fixed-window rate=5" + YEAR));
      assertThat(limiter.named("api").onPlan("pro").check("alice", 0).remaining()).isCloseTo(5, within(1e-3));
      assertThat(limiter.named("api").check("alice", 0).remaining()).as("the default keeps the shared state")
          .isCloseTo(0, within(1e-3));
      limiter.named("api").replace("fixed-window rate=2" + YEAR);
      assertThat(limiter.named("api").check("alice", 0).remaining()).as("another kind: fresh").isCloseTo(2, within(1e-3));
      assertThat(limiter.named("api").onPlan("pro").limit("alice", 5).allowed()).isTrue();
      assertThat(limiter.named("api").limit("alice", 2).allowed()).as("still two states").isTrue();
    }
  }

  /**
   * Threads deciding one key under two plans, of capacities 200 and 1000, each thread switching
   * plan on every call, the clock frozen. The bound: a consuming request is admitted only when
   * the units used, read under the deciding plan, stay within its capacity, so a state is never
   * capped when it is written (a check or a denial writes nothing) and no unit used is ever
   * forgiven or counted twice; without refills, everything admitted is used, so exactly the
   * larger capacity is admitted, once, however the calls interleave.
   */
  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window"})
  void concurrentPlans_onOneKeyAdmitExactlyTheLargerCapacity(String kind) throws Exception {
    Assumptions.assumeTrue(carriesStateOver() && supports(Limit.parse(kind + " rate=1000" + YEAR)));
    try (RateLimiter limiter = planned(kind + " rate=200" + YEAR, kind + " rate=1000 period=366d")) {
      AtomicInteger admitted = new AtomicInteger();
      AtomicInteger next = new AtomicInteger();
      runConcurrently(() -> {
        for (int i = 0, thread = next.getAndIncrement(); i < Math.max(1000, callsPerThread() / 10); i++) {
          if (limiter.named("api").onPlan((i + thread) % 2 == 0 ? "pro" : null).limit("hot", 1).allowed()) {
            admitted.incrementAndGet();
          }
        }
        return null;
      });
      assertThat(admitted.get()).isEqualTo(1000);
      assertThat(limiter.named("api").onPlan("pro").check("hot", 0).remaining()).isCloseTo(0, within(1e-3));
      assertThat(limiter.named("api").check("hot", 0).remaining()).as("1000 used, capped by 200").isCloseTo(0, within(1e-3));
    }
  }

  @TestFactory
  Stream<DynamicTest> conformanceVectors() {
    return Vectors.all().stream().filter(this::applies).map(scenario -> DynamicTest.dynamicTest(scenario.name(),
        () -> Vectors.assertMatches(scenario, Vectors.replay(scenario, this::newStore))));
  }

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window", "sliding-window", "sliding-log"})
  void limit_deniesWhenEmptyAndADenialChangesNothing(String kind) {
    try (RateLimiter limiter = limiter("l", kind + " rate=3" + YEAR)) {
      assertThat(limiter.named("l").limit("k", 2).allowed()).isTrue();
      Decision denied = limiter.named("l").limit("k", 2);
      assertThat(denied.allowed()).isFalse();
      assertThat(denied.remaining()).isCloseTo(1, within(1e-3));
      assertThat(denied.retryAfterMillis()).isPositive();
      assertThat(limiter.named("l").limit("k", 1).allowed()).as("the denial took nothing").isTrue();
      assertThat(limiter.named("l").limit("k", 1).allowed()).isFalse();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window", "sliding-window", "sliding-log", "quota"})
  void admit_answersAsLimitAndTakesTheSame(String kind) {
    String spec = kind.equals("quota") ? "quota rate=5 cadence=month" : kind + " rate=5" + YEAR;
    try (RateLimiter limiter = limiter("l", spec)) {
      NamedLimiter named = limiter.named("l");
      double[] counts = {2, 2, 2, 0, 1, 1, 0.5, 0, 3};
      for (double count : counts) {
        boolean admitted = named.admit("a", count);
        assertThat(admitted).as("admit %s", count).isEqualTo(limiter.named("l").limit("b", count).allowed());
        assertThat(limiter.named("l").check("a", 0).remaining()).as("units left after %s", count)
            .isCloseTo(limiter.named("l").check("b", 0).remaining(), within(1e-9));
      }
      assertThat(named.admit("a")).as("all 5 taken").isFalse();
      assertThat(named.admit("c")).as("a new key").isTrue();
      assertThat(limiter.named("l").check("c", 0).remaining()).isCloseTo(4, within(1e-3));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window", "sliding-window", "sliding-log"})
  void concurrentAdmitsAndLimits_onOneKeyAdmitExactlyTheCapacity(String kind) throws Exception {
    try (RateLimiter limiter = limiter("l", kind + " rate=1000" + YEAR)) {
      NamedLimiter named = limiter.named("l");
      AtomicInteger admitted = new AtomicInteger();
      AtomicInteger turn = new AtomicInteger();
      runConcurrently(() -> {
        boolean byAdmit = turn.getAndIncrement() % 2 == 0;
        for (int i = 0; i < callsPerThread(); i++) {
          if (byAdmit ? named.admit("hot") : limiter.named("l").limit("hot", 1).allowed()) {
            admitted.incrementAndGet();
          }
        }
        return null;
      });
      assertThat(admitted.get()).isEqualTo(1000);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window", "sliding-window", "sliding-log"})
  void check_neverChangesState(String kind) {
    try (RateLimiter limiter = limiter("l", kind + " rate=3" + YEAR)) {
      for (int i = 0; i < 10; i++) {
        assertThat(limiter.named("l").check("k", 3).allowed()).isTrue();
      }
      assertThat(limiter.named("l").limit("k", 3).allowed()).isTrue();
      assertThat(limiter.named("l").check("k", 1).allowed()).isFalse();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window", "sliding-window", "sliding-log", "quota"})
  void keys_areIndependentAndTheEmptyKeyIsOneMore(String kind) {
    String spec = kind.equals("quota") ? "quota rate=2 cadence=month" : kind + " rate=2" + YEAR;
    try (RateLimiter limiter = limiter("l", spec)) {
      assertThat(limiter.named("l").limit("a", 2).allowed()).isTrue();
      assertThat(limiter.named("l").limit("a", 1).allowed()).isFalse();
      assertThat(limiter.named("l").limit("b", 2).allowed()).isTrue();
      assertThat(limiter.named("l").limit("", 2).allowed()).isTrue();
      assertThat(limiter.named("l").limit("", 1).allowed()).isFalse();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window", "sliding-window", "sliding-log", "quota"})
  void reset_makesTheKeyFullAndIsHarmlessOnUnknownKeys(String kind) {
    String spec = kind.equals("quota") ? "quota rate=2 cadence=month" : kind + " rate=2" + YEAR;
    try (RateLimiter limiter = limiter("l", spec)) {
      limiter.named("l").limit("k", 2);
      limiter.named("l").reset("k");
      limiter.named("l").reset("never-seen");
      assertThat(limiter.named("l").check("k", 0).remaining()).isCloseTo(2, within(1e-3));
      assertThat(limiter.named("l").limit("k", 2).allowed()).isTrue();
      assertThat(limiter.named("l").check("never-seen", 2).allowed()).isTrue();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window", "sliding-window", "sliding-log", "quota"})
  void refund_givesUnitsBackNeverAboveCapacity(String kind) {
    String spec = kind.equals("quota") ? "quota rate=4 cadence=month" : kind + " rate=4" + YEAR;
    try (RateLimiter limiter = limiter("l", spec)) {
      limiter.named("l").limit("k", 3);
      assertThat(limiter.named("l").refund("k", 2).remaining()).isCloseTo(3, within(1e-3));
      assertThat(limiter.named("l").refund("k", 5).remaining()).isCloseTo(4, within(1e-9));
      assertThat(limiter.named("l").refund("unknown", 1).remaining()).isCloseTo(4, within(1e-9));
      assertThat(limiter.named("l").limit("k", 4).allowed()).isTrue();
      assertThat(limiter.named("l").limit("k", 1).allowed()).isFalse();
    }
  }

  @Test
  void limitAll_consumesOnEveryLimitOrOnNone() {
    // token-bucket and fixed-window: kinds every store runs
    try (RateLimiter limiter = limiter("burst", "token-bucket rate=5" + YEAR, "daily", "fixed-window rate=3" + YEAR,
        "log", "token-bucket rate=10" + YEAR)) {
      Decisions first = limiter.limitAll(limiter.named("burst").call("u", 2), limiter.named("daily").call("u", 2),
          limiter.named("log").call("u", 2));
      assertThat(first.allowed()).isTrue();
      assertThat(first.decisions()).extracting(Decision::remaining)
          .satisfiesExactly(r -> assertThat(r).isCloseTo(3, within(1e-3)), r -> assertThat(r).isCloseTo(1, within(1e-3)),
              r -> assertThat(r).isCloseTo(8, within(1e-3)));

      Decisions denied = limiter.limitAll(limiter.named("burst").call("u", 2), limiter.named("daily").call("u", 2),
          limiter.named("log").call("u", 2));
      assertThat(denied.allowed()).isFalse();
      assertThat(denied.decisions().get(1).allowed()).isFalse();
      assertThat(denied.retryAfterMillis()).isEqualTo(denied.decisions().get(1).retryAfterMillis()).isPositive();
      assertThat(limiter.named("burst").check("u", 0).remaining()).as("nothing taken").isCloseTo(3, within(1e-3));
      assertThat(limiter.named("log").check("u", 0).remaining()).as("nothing taken").isCloseTo(8, within(1e-3));
      assertThat(limiter.limitAll(limiter.named("burst").call("u", 3), limiter.named("daily").call("u", 1)).allowed()).isTrue();
    }
  }

  @Test
  void asyncForms_decideAsTheSynchronousOnes() throws Exception {
    try (RateLimiter limiter = limiter("l", "token-bucket rate=2" + YEAR + " maxReserved=1")) {
      assertThat(limiter.named("l").limitAsync("k", 1).toCompletableFuture().get().remaining()).isCloseTo(1, within(1e-3));
      assertThat(limiter.named("l").checkAsync("k", 2).toCompletableFuture().get().allowed()).isFalse();
      assertThat(limiter.named("l").reserveAsync("k", 2).toCompletableFuture().get().remaining()).isCloseTo(-1, within(1e-3));
      assertThat(limiter.named("l").refundAsync("k", 2).toCompletableFuture().get().remaining()).isCloseTo(1, within(1e-3));
      limiter.named("l").resetAsync("k").toCompletableFuture().get();
      assertThat(limiter.limitAllAsync(List.of(limiter.named("l").call("k", 2))).toCompletableFuture().get().allowed())
          .isTrue();
      assertThat(limiter.named("l").checkAsync("k", 0).toCompletableFuture().get().remaining()).isCloseTo(0, within(1e-3));
    }
  }

  @Test
  void acquire_givesUpAtOnceConsumingNothingWhenTheWaitIsTooLong() throws Exception {
    try (RateLimiter limiter = limiter("l", "token-bucket rate=1" + YEAR)) {
      limiter.named("l").limit("k", 1);
      Decision decision = limiter.named("l").acquire("k", 1, Duration.ofSeconds(2));
      assertThat(decision.allowed()).isFalse();
      assertThat(limiter.named("l").check("k", 0).remaining()).as("nothing reserved").isCloseTo(0, within(1e-3));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window", "sliding-window", "sliding-log"})
  void concurrentLimits_onOneKeyAdmitExactlyTheCapacity(String kind) throws Exception {
    try (RateLimiter limiter = limiter("l", kind + " rate=1000" + YEAR)) {
      AtomicInteger admitted = new AtomicInteger();
      runConcurrently(() -> {
        for (int i = 0; i < callsPerThread(); i++) {
          if (limiter.named("l").limit("hot", 1).allowed()) {
            admitted.incrementAndGet();
          }
        }
        return null;
      });
      assertThat(admitted.get()).isEqualTo(1000);
    }
  }

  @Test
  void concurrentLimitAll_neverConsumesPartially() throws Exception {
    try (RateLimiter limiter = limiter("a", "token-bucket rate=1000" + YEAR, "b", "fixed-window rate=500" + YEAR)) {
      AtomicInteger both = new AtomicInteger();
      AtomicInteger aOnly = new AtomicInteger();
      runConcurrently(() -> {
        for (int i = 0; i < callsPerThread() / 4; i++) {
          if (limiter.limitAll(limiter.named("a").call("k"), limiter.named("b").call("k")).allowed()) {
            both.incrementAndGet();
          }
          if (i % 3 == 0 && limiter.named("a").limit("k", 1).allowed()) {
            aOnly.incrementAndGet();
          }
        }
        return null;
      });
      assertThat(both.get() + aOnly.get()).isLessThanOrEqualTo(1000);
      assertThat(limiter.named("a").check("k", 0).remaining()).isCloseTo(1000 - both.get() - aOnly.get(), within(0.01));
      assertThat(limiter.named("b").check("k", 0).remaining()).isCloseTo(500 - both.get(), within(0.01));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window"})
  void concurrentReserves_neverExceedMaxReserved(String kind) throws Exception {
    try (RateLimiter limiter = limiter("l", kind + " rate=10" + YEAR + " maxReserved=50")) {
      AtomicInteger admitted = new AtomicInteger();
      runConcurrently(() -> {
        for (int i = 0; i < callsPerThread() / 10; i++) {
          if (limiter.named("l").reserve("hot", 1).allowed()) {
            admitted.incrementAndGet();
          }
        }
        return null;
      });
      assertThat(admitted.get()).isEqualTo(60);
      assertThat(limiter.named("l").check("hot", 0).remaining()).isCloseTo(-50, within(0.01));
    }
  }

  private static String spec(String kind, String rest) {
    return kind.equals("quota") ? "quota cadence=month" + rest : kind + rest + YEAR;
  }

  /**
   * A take consumes whatever the key holds: below 0 the key is in debt, later calls wait (a
   * check for 0 units is denied), and the take answers with the key's state as such a check.
   */
  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window", "sliding-window", "sliding-log", "quota"})
  void take_consumesWhateverTheKeyHolds_intoDebt(String kind) {
    try (RateLimiter limiter = limiter("l", spec(kind, " rate=10"))) {
      Decision within = limiter.named("l").take("k", 4);
      assertThat(within.allowed()).as("not in debt").isTrue();
      assertThat(within.remaining()).isCloseTo(6, within(1e-9));
      Decision debt = limiter.named("l").take("k", 9);
      assertThat(debt.allowed()).as("in debt: a check for 0 units is denied").isFalse();
      assertThat(debt.remaining()).isCloseTo(-3, within(1e-9));
      assertThat(debt.retryAfterMillis()).as("until the key is out of debt").isPositive();
      assertThat(limiter.named("l").limit("k", 0).allowed()).as("count 0 reveals the debt").isFalse();
      assertThat(limiter.named("l").limit("k", 1).allowed()).isFalse();
      assertThat(limiter.named("l").check("k", 0).remaining()).as("denials took nothing").isCloseTo(-3, within(1e-9));
      assertThat(limiter.named("l").refund("k", 5).remaining()).as("a refund pays debt back").isCloseTo(2, within(1e-9));
      assertThat(limiter.named("l").take("fresh", 0).remaining()).as("0 units on a new key").isCloseTo(10, within(1e-9));
      assertThat(limiter.named("l").check("other", 10).allowed()).as("keys are independent").isTrue();
    }
  }

  /**
   * One capacity of debt at most, whatever the count (1e308 and Long.MAX_VALUE included): the key
   * comes back as a key that far in debt does, and nothing overflows.
   */
  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window", "sliding-window", "sliding-log", "quota"})
  void take_goesNoDeeperThanOneCapacity_forAnyCount(String kind) {
    try (RateLimiter limiter = limiter("l", spec(kind, " rate=10"))) {
      for (double huge : new double[] {1e308, Long.MAX_VALUE, Double.MAX_VALUE, 25}) {
        String key = "k" + huge;
        Decision decision = limiter.named("l").take(key, huge);
        assertThat(decision.remaining()).as("%s taken", huge).isCloseTo(-10, within(1e-9));
        assertThat(decision.retryAfterMillis()).as("a finite wait").isPositive().isLessThan(Long.MAX_VALUE / 4);
        assertThat(limiter.named("l").take(key, huge).remaining()).as("no deeper").isCloseTo(-10, within(1e-9));
        assertThat(limiter.named("l").refund(key, 10).remaining()).isCloseTo(0, within(1e-9));
      }
      limiter.named("l").limit("reserved", 10);
      assertThat(limiter.named("l").take("reserved", 7).remaining()).isCloseTo(-7, within(1e-9));
    }
  }

  /**
   * A reservation no wait could serve (a count of 1e300 on an unbounded {@code maxReserved}) is
   * denied at once, taking nothing: never a search that runs for ever (in
   * Redis, a script that never ends blocks every client) nor a state that overflows.
   */
  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window"})
  @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a backstop against a hang
  void reserve_ofACountNoWaitCouldServe_isDeniedAtOnce(String kind) throws InterruptedException {
    try (RateLimiter limiter = limiter("l", kind + " rate=10" + YEAR)) {
      for (double huge : new double[] {1e300, 1e20, Long.MAX_VALUE}) {
        String key = "k" + huge;
        Decision acquired = limiter.named("l").acquire(key, huge, Duration.ofSeconds(1));
        assertThat(acquired.allowed()).as("no turn within a second for %s", huge).isFalse();
        assertThat(limiter.named("l").check(key, 0).remaining()).as("nothing taken").isCloseTo(10, within(1e-9));
        Decision reserved = limiter.named("l").reserve(key, huge);
        assertThat(reserved.allowed()).as("a turn past any wait, for %s", huge).isFalse();
        assertThat(reserved.remaining()).as("nothing taken").isCloseTo(10, within(1e-9));
        assertThat(limiter.named("l").reserve(key, 1).allowed()).isTrue();
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window"})
  void take_goesAsDeepAsAFiniteMaxReservedAboveTheCapacity(String kind) {
    try (RateLimiter limiter = limiter("l", kind + " rate=10 maxReserved=30" + YEAR)) {
      assertThat(limiter.named("l").take("k", 1e9).remaining()).isCloseTo(-30, within(1e-9));
      assertThat(limiter.named("l").reserve("k", 0).allowed()).as("as deep as a reservation may go").isTrue();
    }
    try (RateLimiter limiter = limiter("l", kind + " rate=10 maxReserved=0" + YEAR)) {
      assertThat(limiter.named("l").take("k", 1e9).remaining()).as("at least one capacity").isCloseTo(-10, within(1e-9));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window", "sliding-window", "sliding-log", "quota"})
  void settleActual_givesTheDifferenceBackOrTakesIt(String kind) {
    try (RateLimiter limiter = limiter("l", spec(kind, " rate=10"))) {
      PendingCharge below = limiter.named("l").charge("k", 6);
      assertThat(below.settleActual(2).remaining()).as("4 of the 6 charged given back").isCloseTo(8, within(1e-9));
      PendingCharge above = limiter.named("l").charge("k", 3);
      Decision after = above.settleActual(15);
      assertThat(after.remaining()).as("12 more taken: 2 used before, 15 now").isCloseTo(-7, within(1e-9));
      assertThat(after.allowed()).isFalse();
      assertThat(above.settleActual(1)).as("settled once: the charge's own decision").isSameAs(above.decision());
      assertThat(limiter.named("l").check("k", 0).remaining()).isCloseTo(-7, within(1e-9));
      assertThat(limiter.named("l").charge("k", 1).allowed()).as("later calls wait").isFalse();
    }
  }

  @Test
  void settleActualAsync_settlesAsTheSynchronousOne() throws Exception {
    try (RateLimiter limiter = limiter("l", "token-bucket rate=10" + YEAR)) {
      PendingCharge charge = limiter.named("l").chargeAsync("k", 4).toCompletableFuture().get();
      assertThat(charge.allowed()).isTrue();
      assertThat(charge.settleActualAsync(12).toCompletableFuture().get().remaining()).isCloseTo(-2, within(1e-9));
      PendingCharge second = limiter.named("l").chargeAsync("other", 4).toCompletableFuture().get();
      assertThat(second.settleActualAsync(1).toCompletableFuture().get().remaining()).isCloseTo(9, within(1e-9));
      assertThat(limiter.named("l").takeAsync("k", 100).toCompletableFuture().get().remaining()).isCloseTo(-10, within(1e-9));
    }
  }

  /**
   * Threads charge random estimates (0 to 10) on one key and settle each with a random actual
   * count (1 to 20), above or below it: whatever the interleaving, the units the key used are
   * exactly the sum of the actual counts of the charges admitted (denied charges took nothing).
   * A charge of 0 is admitted until the key is in debt, so every run ends in debt; the debt stays
   * far from its bound (each thread owes at most 20 more than its charge at once).
   */
  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window", "sliding-window", "sliding-log", "quota"})
  void concurrentCharges_settledWithActualCounts_useExactlyTheirSum(String kind) throws Exception {
    try (RateLimiter limiter = limiter("l", spec(kind, " rate=1000"))) {
      java.util.concurrent.atomic.AtomicLong used = new java.util.concurrent.atomic.AtomicLong();
      AtomicInteger denied = new AtomicInteger();
      AtomicInteger next = new AtomicInteger();
      runConcurrently(() -> {
        java.util.Random random = new java.util.Random(next.incrementAndGet());
        for (int i = 0; i < settlesPerThread(); i++) {
          PendingCharge charge = limiter.named("l").charge("hot", random.nextInt(11));
          int actual = 1 + random.nextInt(20);
          charge.settleActual(actual);
          if (charge.allowed()) {
            used.addAndGet(actual);
          } else {
            denied.incrementAndGet();
          }
        }
        return null;
      });
      assertThat(used.get()).as("the capacity and more used: in debt").isGreaterThan(1000);
      assertThat(denied.get()).as("then denied").isPositive();
      assertThat(limiter.named("l").check("hot", 0).remaining()).isCloseTo(1000 - used.get(), within(1e-6));
    }
  }

  /** Charges settled in {@link #concurrentCharges_settledWithActualCounts_useExactlyTheirSum} per thread. */
  protected int settlesPerThread() {
    return Math.max(200, callsPerThread() / 20);
  }

  /** Runs the task on {@link #threads()} threads released together; rethrows the first failure. */
  protected void runConcurrently(Callable<Void> task) throws Exception {
    Concurrently.run(threads(), task);
  }
}

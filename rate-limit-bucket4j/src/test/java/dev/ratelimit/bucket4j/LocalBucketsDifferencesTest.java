package dev.ratelimit.bucket4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.ratelimit.Decision;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Operation;
import dev.ratelimit.limiter.NamedLimiter;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.InMemoryStore;
import dev.ratelimit.store.RateLimitStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Each way the bucket4j store's decisions differ from the in-memory store's (the README lists them). */
class LocalBucketsDifferencesTest {
  private final ManualClock clock = new ManualClock(1_767_225_600_000L);

  private RateLimiter limiter(RateLimitStore store, String... namesAndSpecs) {
    RateLimiter.Builder builder = RateLimiter.builder().clock(clock).store(store);
    for (int i = 0; i < namesAndSpecs.length; i += 2) {
      builder.limit(namesAndSpecs[i], namesAndSpecs[i + 1]);
    }
    return builder.build();
  }

  private RateLimiter bucket4j(String... namesAndSpecs) {
    return limiter(Bucket4jStore.local(clock), namesAndSpecs);
  }

  /** README difference 13: one bucket per key across plans only when the keys read the same. */
  @Test
  void plans_shareBucketsOnlyWhenTheKeysReadTheSame_elseAreRefusedAtBuild() {
    RateLimiter.Builder other = RateLimiter.builder().clock(clock).store(Bucket4jStore.local(clock))
        .limit("api", "token-bucket rate=2 period=1h").onPlan("pro").limit("api", "token-bucket rate=5 period=1h");
    assertThatThrownBy(other::build).isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("limit 'api', plan 'pro' (token-bucket rate=5 period=1h): its keys would share one "
            + "state with the default plan's (token-bucket rate=2 period=1h), but the bucket4j store can't carry a "
            + "key's used units from one token-bucket bucket to another");
    try (RateLimiter limiter = RateLimiter.builder().clock(clock).store(Bucket4jStore.local(clock))
        .limit("api", "token-bucket rate=2 period=1h").onPlan("watch").limit("api", "token-bucket rate=2 period=1h mode=shadow")
        .onPlan("pro").limit("api", "fixed-window rate=5 period=1h").build()) {
      assertThat(limiter.named("api").limit("k", 2).allowed()).isTrue();
      assertThat(limiter.named("api").onPlan("watch").check("k", 0).remaining()).as("one bucket: only the mode differs")
          .isCloseTo(0, within(1e-6));
      assertThat(limiter.named("api").onPlan("pro").check("k", 0).remaining()).as("another kind: buckets of its own")
          .isCloseTo(5, within(1e-6));
    }
  }

  @Test
  void countsFinerThanAToken_areRoundedUpWhenTaken() {
    try (RateLimiter limiter = bucket4j("l", "token-bucket rate=10 period=1h")) {
      // a token is a millionth of a unit
      assertThat(limiter.named("l").limit("k", 1e-7).remaining()).isCloseTo(10 - 1e-6, within(1e-12));
      // the in-memory store would have 9.9999999 left
      assertThat(limiter.named("l").check("k", 9.9999995).allowed()).isFalse();
      assertThat(limiter.named("l").check("k", 9.999999).allowed()).isTrue();
    }
  }

  @Test
  void refundsFinerThanAToken_areRoundedDown() {
    try (RateLimiter limiter = bucket4j("l", "token-bucket rate=10 period=1h")) {
      limiter.named("l").limit("k", 5);
      assertThat(limiter.named("l").refund("k", 1.5e-6).remaining()).isCloseTo(5 + 1e-6, within(1e-12));
      assertThat(limiter.named("l").refund("k", 1e-7).remaining()).as("less than a token: nothing").isCloseTo(5 + 1e-6, within(1e-12));
    }
  }

  @Test
  void fastLimits_countWholeUnits() {
    // a billion per second is one token per nanosecond, bucket4j's fastest: one token is one unit
    try (RateLimiter limiter = bucket4j("l", "token-bucket rate=1000000000 period=1s")) {
      assertThat(limiter.named("l").limit("k", 0.5).remaining()).isEqualTo(999_999_999);
      assertThat(limiter.named("l").refund("k", 0.5).remaining()).isEqualTo(999_999_999);
    }
  }

  @Test
  void hugeCapacities_countInThousandths() {
    // refilling in 1,000 hours: a refill beyond 292 years is a spec error (docs/design.md §4.2.1)
    try (RateLimiter limiter = bucket4j("l", "token-bucket rate=1000000000 period=1h capacity=1000000000000")) {
      // 10.0001 (the smallest count is 1e-11 of the capacity, 10) is charged as 10.001; the
      // tolerance is one ulp at 1e12, well below the 0.0009 being told apart
      assertThat(limiter.named("l").limit("k", 10.0001).remaining()).isCloseTo(1e12 - 10.001, within(2e-4));
    }
  }

  @Test
  void limitsFinerThanAToken_holdWholeTokens() {
    // sharding a limit of 10 into 3 gives each shard 10/3 units: 3,333,333 tokens
    try (Bucket4jStore store = Bucket4jStore.local(clock)) {
      var third = store.bind("l", dev.ratelimit.Limit.tokenBucket(10.0 / 3, java.time.Duration.ofHours(1)));
      assertThat(third.apply("k", Operation.CHECK, 0, 0).remaining()).isEqualTo(3.333333);
      assertThat(third.apply("k", Operation.LIMIT, 10.0 / 3, 0).allowed()).as("needs 3,333,334 tokens").isFalse();
    }
  }

  @Test
  void reservationsBucket4jMakesBeyondMaxReserved_areGivenBack() {
    // bucket4j bounds a reservation by its wait, here two windows: a debt of 4 needs no more
    // windows than one of 3, so bucket4j takes it, and the store gives it back
    String spec = "fixed-window rate=2 period=1s maxReserved=3";
    try (RateLimiter ours = bucket4j("l", spec);
        RateLimiter reference = limiter(InMemoryStore.keepingEveryKey(clock), "l", spec)) {
      clock.setMillis(1_767_225_600_000L);
      for (RateLimiter limiter : List.of(ours, reference)) {
        assertThat(limiter.named("l").reserve("k", 5).remaining()).isEqualTo(-3);
      }
      Decision denied = ours.named("l").reserve("k", 1);
      assertThat(denied).isEqualTo(reference.named("l").reserve("k", 1));
      assertThat(denied.allowed()).isFalse();
      assertThat(denied.retryAfterMillis()).as("fits after the next window's 2").isEqualTo(1_000);
      assertThat(ours.named("l").check("k", 0).remaining()).as("given back").isEqualTo(-3);
    }
  }

  @Test
  void limitAll_takesInOrderAndGivesBackOnADenial() {
    try (RateLimiter limiter = bucket4j("burst", "token-bucket rate=5 period=365d", "daily", "fixed-window rate=3 period=1d")) {
      assertThat(limiter.limitAll(limiter.named("burst").call("u", 2), limiter.named("daily").call("u", 2)).allowed()).isTrue();
      var denied = limiter.limitAll(limiter.named("burst").call("u", 2), limiter.named("daily").call("u", 2));
      assertThat(denied.allowed()).isFalse();
      assertThat(denied.decisions().get(1).allowed()).isFalse();
      assertThat(limiter.named("burst").check("u", 0).remaining()).as("given back").isEqualTo(3);
      assertThat(limiter.named("daily").check("u", 0).remaining()).isEqualTo(1);
    }
  }

  @Test
  void concurrentLimitAll_neverConsumesPartially() throws Exception {
    try (RateLimiter limiter = bucket4j("a", "token-bucket rate=1000 period=365d", "b", "fixed-window rate=500 period=365d")) {
      AtomicInteger both = new AtomicInteger();
      AtomicInteger aOnly = new AtomicInteger();
      ExecutorService pool = Executors.newFixedThreadPool(4);
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        done.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < 5_000; i++) {
            if (limiter.limitAll(limiter.named("a").call("k"), limiter.named("b").call("k")).allowed()) {
              both.incrementAndGet();
            }
            if (i % 3 == 0 && limiter.named("a").limit("k", 1).allowed()) {
              aOnly.incrementAndGet();
            }
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> future : done) {
        future.get(1, TimeUnit.MINUTES);
      }
      pool.shutdown();
      assertThat(both.get() + aOnly.get()).isLessThanOrEqualTo(1000);
      assertThat(limiter.named("a").check("k", 0).remaining()).isCloseTo(1000 - both.get() - aOnly.get(), within(0.01));
      assertThat(limiter.named("b").check("k", 0).remaining()).isEqualTo(500 - both.get());
    }
  }

  @Test
  void localBuckets_areKeptUntilResetAndLooksKeepNone() {
    try (Bucket4jStore store = Bucket4jStore.local(clock)) {
      var space = store.bind("l", dev.ratelimit.Limit.parse("token-bucket rate=10 period=1s"));
      for (int i = 0; i < 100; i++) {
        space.apply("taken-" + i, Operation.LIMIT, 1, 0);
        space.apply("looked-" + i, Operation.CHECK, 1, 0);
        space.apply("looked-" + i, Operation.LIMIT, 0, 0);
        space.refund("looked-" + i, 0);
      }
      clock.advanceMillis(3_600_000); // every bucket is full again; the in-memory store would drop them
      space.apply("taken-0", Operation.LIMIT, 1, 0);
      assertThat(((Buckets.Local) store.buckets()).size()).isEqualTo(100);
      space.reset("taken-0");
      assertThat(((Buckets.Local) store.buckets()).size()).isEqualTo(99);
    }
  }

  /**
   * README difference 14: a take beyond the debt bound is taken, then what is beyond the bound
   * given back in whole tokens: two bucket4j calls. Takes racing on one bucket each give back what
   * they took beyond the bound, so the bucket ends at the bound, as one take after the other
   * leaves it. A token bucket's refilled fraction of a token stays: it ends less than a token
   * short of the bound.
   */
  @Test
  void takesToTheBound_leaveATokenBucketsRefilledFractionOfATokenStanding() {
    try (RateLimiter ours = bucket4j("l", "token-bucket rate=10 period=1m capacity=20");
        RateLimiter core = limiter(new InMemoryStore(clock), "l", "token-bucket rate=10 period=1m capacity=20")) {
      ours.named("l").limit("k", 20);
      core.named("l").limit("k", 20);
      clock.advanceMillis(1); // 1/6000 of a unit: 166 tokens and two thirds of one
      assertThat(core.named("l").take("k", 50).remaining()).isEqualTo(-20);
      assertThat(ours.named("l").take("k", 50).remaining()).isGreaterThan(-20).isCloseTo(-20, within(1e-6));
    }
  }

  /**
   * README difference 14: a take beyond the debt bound is taken, then what is beyond the bound
   * given back: two bucket4j calls. Takes racing on one bucket each give back what they took
   * beyond the bound, so the bucket ends at the bound, as one take after the other leaves it.
   */
  @Test
  void takesBeyondTheBound_areGivenBack_andRacingTakesEndAtTheBound() throws Exception {
    try (RateLimiter limiter = bucket4j("l", "token-bucket rate=10 period=365d", "w", "fixed-window rate=10 period=365d")) {
      assertThat(limiter.named("l").take("k", 1e12).remaining()).isEqualTo(-10);
      assertThat(limiter.named("l").take("k", 3).remaining()).as("no deeper").isEqualTo(-10);
      ExecutorService pool = Executors.newFixedThreadPool(4);
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        done.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < 500; i++) {
            limiter.named("l").take("hot", 7);
            limiter.named("w").take("hot", 1e9);
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> future : done) {
        future.get(1, TimeUnit.MINUTES);
      }
      pool.shutdown();
      assertThat(limiter.named("l").check("hot", 0).remaining()).isEqualTo(-10);
      assertThat(limiter.named("w").check("hot", 0).remaining()).isEqualTo(-10);
    }
  }

  /**
   * README difference 15: bucket4j counts the wait to repay a debt in nanoseconds (about 292
   * years at most); a take whose debt would take longer to repay is refused, naming the limit.
   */
  @Test
  void takesWhoseRepaymentOutlastsBucket4jsNanoseconds_areRefused() {
    try (RateLimiter limiter = bucket4j("l", "token-bucket rate=1 period=100000d")) {
      assertThat(limiter.named("l").take("k", 5).remaining()).as("274 years to repay").isEqualTo(-1);
      assertThatThrownBy(() -> limiter.named("l").take("k", 1)).isInstanceOf(UnsupportedOperationException.class)
          .hasMessageContaining("limit 'l' (a token-bucket)").hasMessageContaining("292 years");
      assertThat(limiter.named("l").check("k", 0).remaining()).as("nothing taken").isEqualTo(-1);
    }
  }
}

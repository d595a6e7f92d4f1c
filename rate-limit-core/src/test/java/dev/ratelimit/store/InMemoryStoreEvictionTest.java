package dev.ratelimit.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Operation;
import dev.ratelimit.contract.Concurrently;
import dev.ratelimit.limiter.RateLimiter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Eviction never gives units back: a key forgotten under memory pressure
 * returns with at least what it had used, whichever limit the flood is on; and a new key pays a
 * bounded number of visits, never a pass over the map. Sizes are small so that it runs in
 * seconds; {@link InMemoryStoreFloodTest} runs the sizes.
 */
class InMemoryStoreEvictionTest {
  private static final int MAX_KEYS = 10_000;
  private final ManualClock clock = new ManualClock(1_767_225_600_000L);

  /** The minimal test, scaled: a daily quota's flood must not free an exhausted login. */
  @Test
  void crossLimitFlood_doesNotFreeAnExhaustedBucket() {
    InMemoryStore store = new InMemoryStore(clock, MAX_KEYS);
    RateLimiter limiter = RateLimiter.builder().clock(clock).store(store)
        .limit("login", "token-bucket rate=5 period=15m")
        .limit("api", "quota rate=1000 cadence=day").build();
    int admitted = 0;
    for (int i = 0; i < 6; i++) {
      admitted += limiter.named("login").limit("victim", 1).allowed() ? 1 : 0;
    }
    for (int i = 0; i < 3 * MAX_KEYS; i++) {
      limiter.named("api").limit("a" + i, 1);
      if (i % 100 == 0) {
        admitted += limiter.named("login").limit("victim", 1).allowed() ? 1 : 0;
      }
    }
    assertThat(admitted).as("logins admitted to the victim within a frozen quarter hour").isEqualTo(5);
    assertThat(limiter.named("login").limit("victim", 1).allowed()).isFalse();
    assertThat(store.size()).isLessThanOrEqualTo(MAX_KEYS);
  }

  /**
   * An attacker exhausting each of their own keys makes an older exhausted bucket the next to
   * go; it must come back exhausted. The victim is a minute older, so fresh sooner than the
   * flood's keys, and the hand picks it when it passes.
   */
  @ParameterizedTest
  @ValueSource(strings = {"token-bucket rate=5 period=15m", "sliding-log rate=5 period=15m", "gcra rate=5 period=15m"})
  void sameLimitFlood_ofExhaustedKeys_doesNotFreeAnOlderOne(String spec) {
    assertThat(flood(spec)).as("the victim was evicted, so it came back from the sketch").isTrue();
  }

  /**
   * The same for the windowed kinds, where a minute changes no window: the victim ties with the
   * flood's keys and may or may not be the one evicted, but never comes back with units.
   */
  @ParameterizedTest
  @ValueSource(strings = {"fixed-window rate=5 period=15m", "sliding-window rate=5 period=15m"})
  void sameLimitFlood_ofExhaustedKeys_doesNotFreeAnOlderOne_windows(String spec) {
    flood(spec);
  }

  /** Exhausts a victim, then floods with exhausted keys; true if the victim was evicted meanwhile. */
  private boolean flood(String spec) {
    InMemoryStore store = new InMemoryStore(clock, MAX_KEYS);
    InMemoryKeySpace login = (InMemoryKeySpace) store.bind("login", Limit.parse(spec));
    assertThat(login.apply("victim", Operation.LIMIT, 5, 0).allowed()).isTrue();
    clock.advanceMillis(60_000); // older, so fresh sooner than the flood's keys (outside windows)
    boolean evicted = false;
    for (int i = 0; i < 3 * MAX_KEYS; i++) {
      login.apply("a" + i, Operation.LIMIT, 5, 0);
      evicted |= !login.holds("victim");
      assertThat(login.apply("victim", Operation.LIMIT, 1, 0).allowed()).as("after %d keys", i).isFalse();
    }
    assertThat(store.size()).isLessThanOrEqualTo(MAX_KEYS);
    return evicted;
  }

  /**
   * 60 used, 10 refilled: what comes back is the 50 left, refilling as before. The flood is on
   * another limit, so nothing shares the key's cells and the sketch is exact.
   */
  @Test
  void evictedKey_returnsWithItsOwnLevelAndRefills() {
    InMemoryStore store = new InMemoryStore(clock, 100);
    KeySpace bucket = store.bind("b", Limit.parse("token-bucket rate=100 period=100s"));
    KeySpace daily = store.bind("d", Limit.parse("quota rate=10 cadence=day"));
    bucket.apply("user", Operation.LIMIT, 60, 0);
    clock.advanceMillis(10_000); // 10 units back: 50 left
    for (int i = 0; i < 1000; i++) {
      daily.apply("other" + i, Operation.LIMIT, 1, 0);
    }
    assertThat(((InMemoryKeySpace) bucket).holds("user")).isFalse();
    assertThat(bucket.apply("user", Operation.CHECK, 0, 0).remaining()).isEqualTo(50);
    clock.advanceMillis(20_000);
    assertThat(bucket.apply("user", Operation.CHECK, 0, 0).remaining()).isEqualTo(70);
  }

  /**
   * A key one capacity in debt (a take) and evicted comes back in debt: the sketch keeps units
   * used above the capacity, and a returning key is charged them whatever its level.
   */
  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra", "fixed-window", "sliding-window", "sliding-log", "quota"})
  void evictedKeyInDebt_returnsInDebt(String kind) {
    InMemoryStore store = new InMemoryStore(clock, 100);
    String spec = kind.equals("quota") ? "quota rate=10 cadence=month" : kind + " rate=10 period=1h";
    KeySpace space = store.bind("b", Limit.parse(spec));
    KeySpace decade = store.bind("d", Limit.parse("token-bucket rate=1 period=3650d")); // fresh after the user
    assertThat(space.apply("user", Operation.TAKE, 1e9, 0).remaining()).isEqualTo(-10);
    for (int i = 0; i < 1000; i++) {
      decade.apply("other" + i, Operation.LIMIT, 1, 0);
    }
    assertThat(((InMemoryKeySpace) space).holds("user")).isFalse();
    assertThat(space.apply("user", Operation.CHECK, 0, 0).remaining()).isEqualTo(-10);
  }

  /**
   * A flood of five times the bound of keys that used 1 unit each saturates the sketch, so a new
   * key is charged like the flood's keys; a little more, as keys charged on return are folded
   * back with what they were charged. Far from a denial.
   */
  @Test
  void floodOfLightKeys_chargesANewKeyAFewUnits() {
    InMemoryStore store = new InMemoryStore(clock, MAX_KEYS);
    RateLimiter limiter = RateLimiter.builder().clock(clock).store(store)
        .limit("api", "quota rate=1000 cadence=day").build();
    for (int i = 0; i < 5 * MAX_KEYS; i++) {
      limiter.named("api").limit("flood" + i, 1);
    }
    for (int i = 0; i < 100; i++) {
      assertThat(limiter.named("api").limit("newcomer" + i, 1).remaining()).isGreaterThanOrEqualTo(990);
    }
  }

  /**
   * Under threads: a victim hammered while three threads flood with exhausted keys of the same
   * limit never gets more than its capacity in a frozen period. Not exactly its capacity: 60,000
   * evicted keys saturate a 512-wide sketch, and the victim, once it has spent a unit, is the key
   * fresh soonest, so the hand may evict it and it then reads as the flood's heaviest usage
   * (design.md §4.2.1: false denials, never extra admissions). Asserting 5 failed about one run
   * in two on a loaded machine (0 or 1 admitted), on main's code too.
   */
  @Test
  void concurrentFlood_victimGetsExactlyItsCapacity() throws Exception {
    InMemoryStore store = new InMemoryStore(clock, 2000);
    RateLimiter limiter = RateLimiter.builder().clock(clock).store(store)
        .limit("login", "token-bucket rate=5 period=15m").build();
    AtomicInteger admitted = new AtomicInteger();
    AtomicInteger flooding = new AtomicInteger(3);
    AtomicBoolean running = new AtomicBoolean(true);
    List<Callable<Void>> tasks = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      int thread = t;
      tasks.add(() -> {
        for (int i = 0; i < 20_000; i++) {
          limiter.named("login").limit("a" + thread + "-" + i, 5);
        }
        if (flooding.decrementAndGet() == 0) {
          running.set(false);
        }
        return null;
      });
    }
    tasks.add(() -> {
      while (running.get()) {
        if (limiter.named("login").limit("victim", 1).allowed()) {
          admitted.incrementAndGet();
        }
      }
      return null;
    });
    Concurrently.runAll(tasks);
    assertThat(admitted.get()).isBetween(0, 5);
    assertThat(store.size()).isLessThanOrEqualTo(2000 + 3);
  }

  /** The eviction stall: each new key pays a bounded number of visits, counted, not timed. */
  @Test
  void newKeys_payBoundedVisits_belowAndBeyondTheBound() {
    InMemoryStore store = new InMemoryStore(clock, MAX_KEYS);
    RateLimiter limiter = RateLimiter.builder().clock(clock).store(store)
        .limit("a", "token-bucket rate=10 period=1h").limit("b", "sliding-log rate=10 period=1h").build();
    int keys = 20 * MAX_KEYS;
    for (int i = 0; i < keys; i++) {
      limiter.named(i % 2 == 0 ? "a" : "b").limit("k" + i, 1);
    }
    assertThat(store.size()).isEqualTo(MAX_KEYS);
    assertThat(store.mostVisitedForOneKey()).isLessThanOrEqualTo(InMemoryStore.EVICTION_SAMPLE);
    assertThat(store.visitedKeys()).isLessThanOrEqualTo((long) keys * InMemoryStore.EVICTION_SAMPLE)
        .isGreaterThan(keys);
  }
}

package dev.ratelimit.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Operation;
import dev.ratelimit.contract.Concurrently;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A flood of keys that are each exhausted and then denied, so that every cell the store holds
 * carries a kept decision (docs/design.md §4.2) when the hand evicts it. Eviction of such a cell
 * must fold its state like any other: the store stays within {@code maxKeys}, an exhausted victim
 * is never admitted early, and flooded keys that come back from the sketch are still denied.
 * Small sizes, so that it runs in seconds; {@link DeniedKeysMillionFloodTest} runs millions.
 */
class DeniedKeysFloodTest {
  private static final int MAX_KEYS = 1000;
  private static final int FLOOD = 20 * MAX_KEYS;
  /** Each kind's capacity is 5, and one unit comes back after 3 minutes (fixed window: 15). */
  private static final int CAPACITY = 5;
  private static final long QUARTER_HOUR = 15 * 60_000;
  private final ManualClock clock = new ManualClock(1_767_225_600_000L);

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket rate=5 period=15m", "gcra rate=5 period=15m", "fixed-window rate=5 period=15m"})
  void floodOfDeniedKeys_keepsTheBound_andFreesNeitherTheVictimNorTheFlood(String spec) {
    InMemoryStore store = new InMemoryStore(clock, MAX_KEYS);
    InMemoryKeySpace login = (InMemoryKeySpace) store.bind("login", Limit.parse(spec));
    assertThat(exhaust(login, "victim")).isEqualTo(CAPACITY);
    // older than the flood, so fresh soonest and the hand's pick (token bucket, GCRA); a fixed
    // window ties, as a minute changes no quarter-hour window
    clock.advanceMillis(60_000);

    int victimAdmitted = 0;
    boolean victimEvicted = false;
    List<String> stored = new ArrayList<>();
    for (int i = 0; i < FLOOD; i++) {
      String key = "a" + i;
      // once the flood's evicted keys cover every cell of the sketch, a new key starts from the
      // flood's usage: denied, with no cell stored (docs/design.md §4.2.1); the others are stored
      int taken = exhaust(login, key);
      assertThat(taken).isLessThanOrEqualTo(CAPACITY);
      if (taken > 0) {
        stored.add(key);
        Decision denied = login.apply(key, Operation.LIMIT, 1, 0);
        assertThat(denied.allowed()).isFalse();
        assertThat(login.apply(key, Operation.LIMIT, 1, 0)).as("a kept denial in the key's cell").isSameAs(denied);
      }
      assertThat(store.size()).as("after %d keys", i).isLessThanOrEqualTo(MAX_KEYS);
      victimEvicted |= !login.holds("victim");
      victimAdmitted += login.apply("victim", Operation.LIMIT, 1, 0).allowed() ? 1 : 0;
      if (i % 1000 == 999) {
        clock.advanceMillis(1); // kept denials are per millisecond: let some be decided anew
      }
    }
    assertThat(victimAdmitted).as("units given to the victim within its first refill").isZero();
    if (!spec.startsWith("fixed-window")) {
      assertThat(victimEvicted).as("the victim was evicted, so it came back from the sketch").isTrue();
    }

    long evictedWithKeptDenial = stored.stream().filter(key -> !login.holds(key)).count();
    // keys go on being stored past the bound, each evicting one, until the sketch's 256 columns
    // turn new keys away (994 to 1,436 evicted in the runs measured)
    assertThat(evictedWithKeptDenial).as("stored flood keys evicted while holding a kept denial")
        .isGreaterThanOrEqualTo(MAX_KEYS / 5);
    int admittedToReturning = 0;
    for (int i = 0; i < FLOOD; i++) {
      String key = "a" + i;
      if (!login.holds(key)) {
        admittedToReturning += login.apply(key, Operation.LIMIT, 1, 0).allowed() ? 1 : 0;
      }
    }
    assertThat(admittedToReturning).as("units given to flood keys coming back from the sketch").isZero();
    assertThat(store.size()).isLessThanOrEqualTo(MAX_KEYS);

    // once every key would be fresh, the sketch holds nothing against the victim
    clock.advanceMillis(QUARTER_HOUR);
    assertThat(exhaust(login, "victim")).isEqualTo(CAPACITY);
  }

  /**
   * Many threads denying on many exhausted keys (each denial kept, decided anew as others write
   * the cell's decision) while a flood on another limit makes the store evict them: exactly no
   * unit admitted per key in the frozen millisecond. Then one unit's refill later, with the flood
   * gone: exactly one unit per key, whether the key was held or came back from the sketch. The
   * victims are exhausted at one instant, so their sketch cells all hold the same state and the
   * count is exact even where they collide.
   */
  @ParameterizedTest
  @ValueSource(strings = {"token-bucket rate=5 period=15m", "gcra rate=5 period=15m"})
  void threadsDenyingManyKeys_whileTheStoreEvicts_admitExactCountsPerKey(String spec) throws Exception {
    int victims = 512;
    int threads = 4;
    InMemoryStore store = new InMemoryStore(clock, 2 * MAX_KEYS);
    InMemoryKeySpace login = (InMemoryKeySpace) store.bind("login", Limit.parse(spec));
    // fresh 1 ms after its use, so that the hand drops it rather than the victims once time moves
    InMemoryKeySpace flood = (InMemoryKeySpace) store.bind("flood", Limit.parse("token-bucket rate=1000 period=1s"));
    for (int v = 0; v < victims; v++) {
      assertThat(exhaust(login, "v" + v)).isEqualTo(CAPACITY);
    }

    AtomicIntegerArray admitted = new AtomicIntegerArray(victims);
    AtomicLong evictions = new AtomicLong();
    AtomicBoolean flooding = new AtomicBoolean(true);
    List<Callable<Void>> tasks = new ArrayList<>();
    tasks.add(() -> {
      try {
        for (int i = 0; i < 30 * MAX_KEYS; i++) {
          flood.apply("f" + i, Operation.LIMIT, 1, 0);
        }
      } finally {
        flooding.set(false);
      }
      return null;
    });
    for (int t = 0; t < threads; t++) {
      int seed = t;
      tasks.add(() -> {
        for (int round = 0; flooding.get(); round++) {
          int v = (round * 7 + seed * 131) % victims;
          if (!login.holds("v" + v)) {
            evictions.incrementAndGet();
          }
          if (login.apply("v" + v, Operation.LIMIT, 1, 0).allowed()) {
            admitted.incrementAndGet(v);
          }
        }
        return null;
      });
    }
    Concurrently.runAll(tasks);
    assertThat(evictions.get()).as("victims found evicted by the denying threads").isPositive();
    for (int v = 0; v < victims; v++) {
      assertThat(admitted.get(v)).as("units admitted to v%d, exhausted, in a frozen millisecond", v).isZero();
    }
    assertThat(store.size()).as("one thread adds keys").isLessThanOrEqualTo(2 * MAX_KEYS);

    // one unit back for every victim (the next comes 3 minutes later), and the flood's keys
    // fresh: new keys, each fresh a millisecond later, make the hand drop them, so that returning
    // victims evict nothing meanwhile (an eviction from here on could fold a victim's new state
    // into cells of victims not yet back)
    clock.advanceMillis(QUARTER_HOUR / CAPACITY);
    for (int i = 0; i < 2 * MAX_KEYS; i++) {
      flood.apply("g" + i, Operation.LIMIT, 1, 0);
      clock.advanceMillis(1);
    }
    long heldBefore = 0;
    for (int v = 0; v < victims; v++) {
      heldBefore += login.holds("v" + v) ? 1 : 0;
    }
    assertThat(heldBefore).as("victims held when the refill is tried").isLessThan(victims);
    assertThat(store.size() + victims - heldBefore).as("keys once every victim is back").isLessThanOrEqualTo(2 * MAX_KEYS);
    Concurrently.run(threads, () -> {
      for (int round = 0; round < 8; round++) {
        for (int v = 0; v < victims; v++) {
          if (login.apply("v" + v, Operation.LIMIT, 1, 0).allowed()) {
            admitted.incrementAndGet(v);
          }
        }
      }
      return null;
    });
    for (int v = 0; v < victims; v++) {
      assertThat(admitted.get(v)).as("units admitted to v%d after one unit's refill", v).isEqualTo(1);
    }
  }

  /** Takes single units until denied; the units admitted. */
  private static int exhaust(KeySpace space, String key) {
    int admitted = 0;
    while (space.apply(key, Operation.LIMIT, 1, 0).allowed()) {
      admitted++;
      if (admitted > 1000) {
        throw new AssertionError("no denial after 1000 units on " + key);
      }
    }
    return admitted;
  }
}

package dev.ratelimit.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.limiter.RateLimiter;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link DeniedKeysFloodTest} at its real size: three million distinct keys, each exhausted and
 * then denied, on the default store (a million keys), so that every key the store holds carries
 * a kept denial, the most a held key costs. Tagged {@code flood}: left out of a module's own
 * build, run by {@code ./run-tests} (CONTRIBUTING.md, "Test tags").
 */
@Tag("flood")
class DeniedKeysMillionFloodTest {
  private static final int FLOOD = 3_000_000;
  private static final int MAX_KEYS = InMemoryStore.DEFAULT_MAX_KEYS;
  /**
   * docs/design.md §4.2: a key costs its cell, map entry and table slot (about 72 bytes, key
   * strings aside), with 40 bytes of slack (the map's table is sized for more keys than it
   * holds); and about 110 bytes more while it holds a kept denial.
   */
  private static final long BYTES_PER_KEY = 75 + 40;
  private static final long BYTES_PER_KEPT_DENIAL = 110;
  /** A limit's sketch: 4 rows of 65,536 cells of 8 bytes (§4.2.1), and its header. */
  private static final long SKETCH_BYTES = 4L * 65_536 * 8 + 1024;
  private final ManualClock clock = new ManualClock(1_767_225_600_000L);

  /** {@code denied}: each flood key is denied once after it is exhausted (false: the same flood without, for comparison). */
  @ParameterizedTest
  @CsvSource({"token-bucket rate=5 period=15m, true", "gcra rate=5 period=15m, true",
      "fixed-window rate=5 period=15m, true", "token-bucket rate=5 period=15m, false"})
  void threeMillionDeniedKeys_keepTheBoundTheVictimAndTheHeap(String spec, boolean denied) {
    String[] keys = new String[FLOOD]; // made first, so that the heap measured is the store's alone
    for (int i = 0; i < FLOOD; i++) {
      keys[i] = "a" + i;
    }
    long before = usedHeapAfterGc();
    InMemoryStore store = new InMemoryStore(clock);
    RateLimiter limiter = RateLimiter.builder().clock(clock).store(store).limit("login", spec).build();
    int victimAdmitted = 0;
    for (int i = 0; i < 6; i++) {
      victimAdmitted += limiter.named("login").limit("victim", 1).allowed() ? 1 : 0;
    }
    clock.advanceMillis(60_000); // older than the flood: fresh soonest, so the hand's pick
    long stored = 0;
    for (int i = 0; i < FLOOD; i++) {
      stored += limiter.named("login").limit(keys[i], 5).allowed() ? 1 : 0;
      if (denied) {
        assertThat(limiter.named("login").limit(keys[i], 1).allowed()).isFalse();
      }
      if (i % 1000 == 0) {
        victimAdmitted += limiter.named("login").limit("victim", 1).allowed() ? 1 : 0;
        assertThat(store.size()).as("after %d keys", i).isLessThanOrEqualTo(MAX_KEYS);
      }
      if (i % 100_000 == 99_999) {
        clock.advanceMillis(1);
      }
    }
    assertThat(victimAdmitted).as("the victim's capacity, and nothing within its first refill").isEqualTo(5);
    assertThat(store.size()).isEqualTo(MAX_KEYS);
    assertThat(stored).as("keys stored, the bound's worth and more: evicted, each holding a kept denial")
        .isGreaterThan(MAX_KEYS + MAX_KEYS / 10);

    int returningAdmitted = 0;
    for (int i = 0; i < 100_000; i++) { // the oldest flood keys, evicted long ago
      returningAdmitted += limiter.named("login").limit(keys[i], 1).allowed() ? 1 : 0;
    }
    assertThat(returningAdmitted).as("units given to evicted flood keys on their return").isZero();

    long retained = usedHeapAfterGc() - before;
    System.out.printf("%s, denied %s: %d keys held, %d stored of %d, %d bytes retained, %.1f per held key%n",
        spec, denied, store.size(), stored, FLOOD, retained, retained / (double) store.size());
    assertThat(retained).as("heap retained by a full store (denied keys: %s)", denied)
        .isLessThanOrEqualTo(MAX_KEYS * (BYTES_PER_KEY + (denied ? BYTES_PER_KEPT_DENIAL : 0)) + SKETCH_BYTES);
    assertThat(limiter.named("login").check("victim", 1).allowed()).as("still denied at the end").isFalse();
    assertThat(keys[FLOOD - 1]).isNotNull(); // keeps the keys alive through the measurement
  }

  /** Used heap after full collections (Runtime's view: core's module does not read java.management). */
  private static long usedHeapAfterGc() {
    Runtime runtime = Runtime.getRuntime();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      used = Math.min(used, runtime.totalMemory() - runtime.freeMemory());
    }
    return used;
  }
}

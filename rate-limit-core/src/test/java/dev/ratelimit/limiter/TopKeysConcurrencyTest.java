package dev.ratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.Concurrently;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Top keys recorded by many threads at once (docs/design.md §10.2): nothing lost, the merged
 * sketches' bounds hold, and memory stays bounded under a flood of distinct keys.
 */
class TopKeysConcurrencyTest {
  private static final int THREADS = 8;
  private final ManualClock clock = new ManualClock(1_767_225_600_000L);

  @Test
  void manyThreads_onALimiter_loseNoUnit_whileTheSketchesHoldEveryKey() throws Exception {
    RateLimiter limiter = RateLimiter.builder().clock(clock).trackTopKeys(65_536, Duration.ofMinutes(1))
        .limit("api", "token-bucket rate=10000 period=1h").build();
    AtomicLong admitted = new AtomicLong();
    AtomicLong denied = new AtomicLong();
    AtomicLong thread = new AtomicLong();
    int perThread = 2_500;
    Concurrently.run(THREADS, () -> {
      long id = thread.getAndIncrement();
      for (int i = 0; i < perThread; i++) {
        (limiter.named("api").limit("hot", 1).allowed() ? admitted : denied).incrementAndGet();
        assertThat(limiter.named("api").admit("noise-" + id + "-" + i, 1)).isTrue();
      }
      return null;
    });
    assertThat(admitted.get()).as("the limit admitted what it holds, and refused the rest").isEqualTo(10_000);
    List<NamedLimiter.TopKey> listed = limiter.named("api").topKeys(Integer.MAX_VALUE);
    assertThat(listed).hasSize(1 + THREADS * perThread);
    assertThat(listed.get(0)).isEqualTo(new NamedLimiter.TopKey("hot", admitted.get(), denied.get(), 0));
    assertThat(listed.subList(1, listed.size())).allSatisfy(noise -> {
      assertThat(noise.key()).startsWith("noise-");
      assertThat(noise).isEqualTo(new NamedLimiter.TopKey(noise.key(), 1, 0, 0));
    });
  }

  @ParameterizedTest(name = "{0} stripes")
  @ValueSource(ints = {1, 2})
  void manyThreadsOnFewStripes_waitForOneAnother_andLoseNothing(int stripes) throws Exception {
    TopKeys top = new TopKeys(clock, 8, 60_000, stripes);
    int perThread = 300_000;
    Concurrently.run(THREADS, () -> {
      for (int i = 0; i < perThread; i++) {
        top.record("hot", 1, i % 3 != 0);
      }
      return null;
    });
    assertThat(top.top(10)).containsExactly(new NamedLimiter.TopKey("hot", THREADS * 200_000, THREADS * 100_000, 0));
  }

  @Test
  void manyThreads_recordingWhileOthersRead_keepTheSketchBounds() throws Exception {
    int size = 16;
    TopKeys top = new TopKeys(clock, size, 60_000);
    int perThread = 30_000;
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicLong reads = new AtomicLong();
    List<Callable<?>> tasks = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int id = t;
      tasks.add(() -> {
        for (int i = 0; i < perThread; i++) {
          Step step = step(id, i);
          top.record(step.key(), step.units(), step.admitted());
        }
        return null;
      });
    }
    tasks.add(() -> { // a reader racing the writers: each merge must be whole
      while (writing.get()) {
        for (NamedLimiter.TopKey key : top.top(size)) {
          assertThat(key.units()).isGreaterThanOrEqualTo(0);
          assertThat(key.uncounted()).isGreaterThanOrEqualTo(0);
        }
        reads.incrementAndGet();
      }
      return null;
    });
    List<Callable<?>> writers = tasks.subList(0, THREADS);
    Callable<?> reader = tasks.get(THREADS);
    Concurrently.runAll(List.of(
        () -> {
          try {
            Concurrently.runAll(writers);
          } finally {
            writing.set(false);
          }
          return null;
        },
        reader));
    assertThat(reads.get()).isPositive();

    Map<String, double[]> exact = new HashMap<>();
    double total = 0;
    for (int t = 0; t < THREADS; t++) {
      for (int i = 0; i < perThread; i++) {
        Step step = step(t, i);
        exact.computeIfAbsent(step.key(), k -> new double[2])[step.admitted() ? 0 : 1] += step.units();
        total += step.units();
      }
    }
    double bound = total / size;
    List<NamedLimiter.TopKey> listed = top.top(Integer.MAX_VALUE);
    assertThat(top.keysHeld()).isLessThanOrEqualTo(2 * TopKeys.STRIPES * size);
    for (NamedLimiter.TopKey key : listed) {
      double[] truth = exact.get(key.key());
      assertThat(key.units()).as(key.key()).isLessThanOrEqualTo(truth[0]);
      assertThat(key.denied()).as(key.key()).isLessThanOrEqualTo(truth[1]);
      assertThat(truth[0] + truth[1]).as(key.key()).isLessThanOrEqualTo(key.units() + key.denied() + key.uncounted());
      assertThat(key.uncounted()).as(key.key()).isLessThanOrEqualTo(bound);
    }
    exact.forEach((key, truth) -> {
      if (truth[0] + truth[1] > bound) {
        assertThat(listed).as("%s has more than W/size", key).extracting(NamedLimiter.TopKey::key).contains(key);
      }
    });
    assertThat(listed.get(0).key()).isEqualTo("hot-0");
  }

  /** One recorded decision of a deterministic mix: two hot keys, a few warm ones, and distinct noise. */
  record Step(String key, double units, boolean admitted) {}

  static Step step(int thread, int i) {
    if (i % 4 == 0) {
      return new Step("hot-0", 1, i % 8 != 0);
    }
    if (i % 9 == 0) {
      return new Step("hot-1", 2, true);
    }
    if (i % 5 == 0) {
      return new Step("warm-" + (i % 40), 1, false);
    }
    return new Step("noise-" + thread + "-" + i, 1, true);
  }

  @Test
  void aMillionDistinctKeysFromManyThreads_holdBoundedMemory() throws Exception {
    int size = 64;
    TopKeys top = new TopKeys(clock, size, 60_000);
    AtomicLong thread = new AtomicLong();
    Concurrently.run(THREADS, () -> {
      long id = thread.getAndIncrement();
      for (int i = 0; i < 1_000_000 / THREADS; i++) {
        top.record(id + ":" + i, 1, true);
        if (i % 10 == 0) {
          top.record("flood", 1, false);
        }
      }
      return null;
    });
    assertThat(top.keysHeld()).isLessThanOrEqualTo(2 * TopKeys.STRIPES * size);
    NamedLimiter.TopKey first = top.top(1).get(0);
    assertThat(first.key()).isEqualTo("flood");
    assertThat(first.denied()).isLessThanOrEqualTo(100_000);
    assertThat(first.denied() + first.uncounted()).isGreaterThanOrEqualTo(100_000)
        .isLessThanOrEqualTo(100_000 + 1_100_000 / (double) size);
  }
}

package dev.ratelimit.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/** 1,000,000 distinct keys, one chosen at random per call: the cost of state out of cache. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ManyKeysBenchmark {
  static final int KEYS = 1_000_000;

  @Param({"rate-limit", "rate-limit-top", "rate-limit-named", "rate-limit-admit", "rate-limit-admit-top", "rate-limit-coarse", "rate-limit-bucket4j", "bucket4j", "resilience4j", "guava", "map-lookup", "map-clock-cas"})
  public String contender;

  private String[] keys;
  private Contender subject;

  @Setup
  public void setUp() {
    keys = keys(KEYS);
    subject = Contender.create(contender, Contender.HOLDS);
    for (String key : keys) {
      subject.acquire(key);
    }
  }

  static String[] keys(int count) {
    String[] keys = new String[count];
    for (int i = 0; i < count; i++) {
      keys[i] = "client-" + i;
    }
    return keys;
  }

  /** A per-thread xorshift, so picking a key costs a few cycles and no shared state. */
  @State(Scope.Thread)
  public static class Cursor {
    private int x = (int) System.nanoTime() | 1;

    int next() {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (int) (((x & 0xffffffffL) * KEYS) >>> 32);
    }
  }

  @Benchmark
  @Threads(1)
  public Object randomKey(Cursor cursor) {
    return subject.acquire(keys[cursor.next()]);
  }
}

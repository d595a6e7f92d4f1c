package dev.ratelimit.benchmarks.bucket4j;

import dev.ratelimit.benchmarks.Contender;
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

/** {@code ManyKeysBenchmark} (1,000,000 keys, one at random per call) with the bucket4j bridge. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class BridgeManyKeysBenchmark {
  static final int KEYS = 1_000_000;

  @Param({"rate-limit", "bucket4j", "bucket4j-bridge"})
  public String contender;

  private String[] keys;
  private Contender subject;

  @Setup
  public void setUp() {
    keys = new String[KEYS];
    for (int i = 0; i < KEYS; i++) {
      keys[i] = "client-" + i;
    }
    subject = BridgeContender.create(contender, Contender.HOLDS);
    for (String key : keys) {
      subject.acquire(key);
    }
  }

  /** A per-thread xorshift, as in {@code ManyKeysBenchmark}. */
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

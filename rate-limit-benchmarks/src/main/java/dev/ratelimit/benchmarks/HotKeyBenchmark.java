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

/** One hot key, looked up by key on every call, from one and from two threads. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class HotKeyBenchmark {
  @Param({"rate-limit", "rate-limit-top", "rate-limit-named", "rate-limit-admit", "rate-limit-admit-top", "rate-limit-coarse", "rate-limit-bucket4j", "bucket4j", "resilience4j", "guava", "map-lookup", "map-clock-cas"})
  public String contender;

  /** {@code denies}: 10 per second; {@code denies-1000}: 1000 per second, a unit back every millisecond. */
  @Param({"admits", "denies", "denies-1000"})
  public String limit;

  private final String key = "user-" + 42;
  private Contender subject;

  @Setup
  public void setUp() {
    subject = Contender.create(contender, switch (limit) {
      case "admits" -> Contender.ADMITS;
      case "denies" -> Contender.DENIES;
      case "denies-1000" -> Contender.DENIES_FAST;
      default -> throw new IllegalArgumentException("unknown limit " + limit);
    });
    subject.acquire(key);
  }

  @Benchmark
  @Threads(1)
  public Object oneThread() {
    return subject.acquire(key);
  }

  @Benchmark
  @Threads(2)
  public Object twoThreads() {
    return subject.acquire(key);
  }
}

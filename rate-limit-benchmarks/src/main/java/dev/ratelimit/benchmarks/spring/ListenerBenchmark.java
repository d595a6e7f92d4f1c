package dev.ratelimit.benchmarks.spring;

import dev.ratelimit.Decision;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.spring.boot.DecisionCounts;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What observing costs per decision on the in-memory hot key (the target: at most 20 ns): the same
 * decision on a limiter without a listener and on one with the listener Spring Boot installs
 * ({@link DecisionCounts}, the counters {@code ratelimit.decisions} reads), side by side in one
 * fork, so that both see the same machine.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 2, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+UseG1GC", "-XX:+AlwaysPreTouch"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ListenerBenchmark {
  private static final String SPEC = "token-bucket rate=1000000000 period=1s";
  private final String key = "user-" + 42;
  private final RateLimiter unobserved = RateLimiter.builder().limit("api", SPEC).build();
  private final RateLimiter observed =
      RateLimiter.builder().limit("api", SPEC).listener(new DecisionCounts(List.of("api"))).build();

  @Benchmark
  public Decision withoutListener() {
    return unobserved.named("api").limit(key, 1);
  }

  @Benchmark
  public Decision withCounts() {
    return observed.named("api").limit(key, 1);
  }
}

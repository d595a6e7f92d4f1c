package dev.ratelimit.benchmarks.spring;

import dev.ratelimit.Decision;
import dev.ratelimit.DecisionListener;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.spring.EnableRateLimiting;
import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.boot.DecisionCounts;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What {@code @RateLimited} costs: the same method called through a Spring proxy with and
 * without the annotation, and the limiter's decision alone. The aspect's own overhead is
 * {@code annotated − unannotated − limiterAlone}; the target is at most 1 µs per call.
 * {@code listener=counts} adds the decision listener Spring Boot installs (the counts the
 * {@code ratelimit.decisions} meters read): side by side with {@code none}, what observing costs
 * per decision ({@link ListenerBenchmark} measures that alone).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
// the heap touched up front, as in Suite: first-touch page faults would slow whichever allocates least
@Fork(value = 3, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+UseG1GC", "-XX:+AlwaysPreTouch"})
@Warmup(iterations = 8, time = 1)
@Measurement(iterations = 5, time = 1)
public class AspectBenchmark {
  @Param({"none", "counts"})
  public String listener;

  /** A service method that does next to nothing, so the benchmark measures the call path. */
  public static class Greeter {
    @RateLimited(name = "api", key = "#p0")
    public String limited(String user) {
      return user;
    }

    /** Unannotated, but on a proxied bean like the other. */
    public String plain(String user) {
      return user;
    }
  }

  @Configuration
  @EnableRateLimiting
  static class App {
    @Bean
    RateLimiter rateLimiter(ObjectProvider<DecisionListener> listener) {
      RateLimiter.Builder builder = RateLimiter.builder().limit("api", "token-bucket rate=1000000000 period=1s");
      listener.ifAvailable(builder::listener);
      return builder.build();
    }

    @Bean
    Greeter greeter() {
      return new Greeter();
    }
  }

  private final String user = "user-" + 42;
  private AnnotationConfigApplicationContext context;
  private Greeter greeter;
  private RateLimiter limiter;

  @Setup
  public void setUp() {
    context = new AnnotationConfigApplicationContext();
    if (listener.equals("counts")) {
      context.registerBean(DecisionCounts.class, () -> new DecisionCounts(List.of("api")));
    }
    context.register(App.class);
    context.refresh();
    greeter = context.getBean(Greeter.class);
    limiter = context.getBean(RateLimiter.class);
  }

  @TearDown
  public void tearDown() {
    context.close();
  }

  @Benchmark
  public String annotated() {
    return greeter.limited(user);
  }

  @Benchmark
  public String unannotated() {
    return greeter.plain(user);
  }

  @Benchmark
  public Decision limiterAlone() {
    return limiter.named("api").limit(user, 1);
  }
}

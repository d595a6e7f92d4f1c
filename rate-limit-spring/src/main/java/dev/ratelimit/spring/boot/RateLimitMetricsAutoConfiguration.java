package dev.ratelimit.spring.boot;

import dev.ratelimit.limiter.RateLimiter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters for the auto-configured limiter: {@code ratelimit.decisions{limit, outcome,
 * source}}, {@code ratelimit.store.available} and {@code ratelimit.store.latency}.
 *
 * <p>Apart from {@link RateLimitAutoConfiguration} and after Boot's metrics auto-configurations,
 * as Resilience4j's {@code RateLimiterMetricsAutoConfiguration}: {@code @ConditionalOnBean}
 * sees only registries defined before it, and Boot makes its own there. Before the limiter's,
 * so that the latency timer exists when the limiter is built. Named by string, for both Boot
 * generations (Boot 4 moved them to its micrometer-metrics module; a name that is absent orders
 * nothing), so that this module needs no Boot metrics module to compile.
 *
 * @since 1.0
 */
@AutoConfiguration(afterName = {
    "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration"},
    before = RateLimitAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
public final class RateLimitMetricsAutoConfiguration {

  /** {@code ratelimit.store.latency} on every registry: the time of each call to a remote store. */
  @Bean
  TimedStore.Latency rateLimitStoreLatency(ObjectProvider<MeterRegistry> registries) {
    List<Timer> timers = registries.orderedStream()
        .map(registry -> Timer.builder("ratelimit.store.latency")
            .description("Time per call to the remote rate limit store").register(registry))
        .toList();
    return nanos -> timers.forEach(timer -> timer.record(nanos, TimeUnit.NANOSECONDS));
  }

  @Bean
  RateLimitMeters rateLimitMeters(ObjectProvider<MeterRegistry> registries, ObjectProvider<RateLimiter> limiter,
      ObjectProvider<DecisionCounts> counts) {
    return new RateLimitMeters(registries, limiter, counts);
  }

  /**
   * The decision counters, read from {@link DecisionCounts} (the limiter's listener) when a
   * registry publishes, and the store gauge; registered when made, on every registry.
   */
  static final class RateLimitMeters {
    RateLimitMeters(ObjectProvider<MeterRegistry> registries, ObjectProvider<RateLimiter> limiters,
        ObjectProvider<DecisionCounts> decisions) {
      RateLimiter limiter = limiters.getIfUnique();
      DecisionCounts counts = decisions.getIfUnique();
      if (limiter == null) {
        return;
      }
      registries.orderedStream().forEach(registry -> {
        if (counts != null) {
          limiter.limits().keySet().forEach(name -> register(registry, name, counts.counts(name)));
        }
        Gauge.builder("ratelimit.store.available", limiter, l -> l.storeAvailable() ? 1 : 0)
            .description("1 while the rate limit store answers, 0 while limits follow their failure policy")
            .register(registry);
      });
    }

    private static void register(MeterRegistry registry, String limit, DecisionCounts.Counts counts) {
      if (counts == null) {
        return; // the application's own limiter has limits the counts were not told of
      }
      counter(registry, limit, "allowed", "store", counts, DecisionCounts.Counts::storeAllowed);
      counter(registry, limit, "denied", "store", counts, DecisionCounts.Counts::storeDenied);
      counter(registry, limit, "allowed", "fallback", counts, DecisionCounts.Counts::fallbackAllowed);
      counter(registry, limit, "denied", "fallback", counts, DecisionCounts.Counts::fallbackDenied);
      counter(registry, limit, "shadow-denied", "store", counts, DecisionCounts.Counts::shadowDenied);
    }

    private static void counter(MeterRegistry registry, String limit, String outcome, String source,
        DecisionCounts.Counts counts, ToDoubleFunction<DecisionCounts.Counts> count) {
      FunctionCounter.builder("ratelimit.decisions", counts, count)
          .tags("limit", limit, "outcome", outcome, "source", source)
          .description("Rate limit decisions; source=fallback: made by a failure policy while the store was down")
          .register(registry);
    }
  }
}

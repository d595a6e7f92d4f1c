package dev.ratelimit.spring.boot;

import dev.ratelimit.Clock;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.spring.RateLimitingConfiguration;
import dev.ratelimit.store.InMemoryStore;
import dev.ratelimit.store.RateLimitStore;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Rate limiting from {@code ratelimit.*}: the limits, the store (in memory by default), the
 * {@link RateLimiter}, {@code @RateLimited}, metrics, the {@code rateLimit} health and the
 * {@code ratelimits} endpoint. Every bean backs off when the application defines its own;
 * {@code ratelimit.enabled=false} turns it all off.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RateLimitProperties.class)
@Import({RateLimitingConfiguration.class, RateLimitWebConfiguration.class, RateLimitMvcConfiguration.class,
    RateLimitStoreConfiguration.Redis.class, RateLimitStoreConfiguration.Bucket4j.class})
public final class RateLimitAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  Clock rateLimitClock() {
    return Clock.system();
  }

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnProperty(name = "ratelimit.store", havingValue = "memory", matchIfMissing = true)
  RateLimitStore rateLimitStore(Clock clock) {
    return new InMemoryStore(clock);
  }

  /** The store, counting its decisions for metrics and the endpoint. */
  @Bean
  @ConditionalOnMissingBean
  CountingStore rateLimitDecisions(RateLimitStore store) {
    return new CountingStore(store);
  }

  @Bean
  @ConditionalOnMissingBean
  RateLimiter rateLimiter(RateLimitProperties properties, CountingStore store, Clock clock) {
    RateLimiter.Builder builder = RateLimiter.builder().clock(clock).store(store)
        .storeFailure(properties.getStoreFailure());
    properties.getLimits().forEach((name, spec) -> {
      try {
        builder.limit(name, spec);
      } catch (IllegalArgumentException e) {
        throw new InvalidLimitConfigurationException("ratelimit.limits." + name + "=" + spec + ": " + e.getMessage(), e);
      }
    });
    RateLimitPlans.add(properties, builder);
    return builder.build();
  }

  /** Micrometer: decisions by limit and outcome, store latency, and whether the store answers. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterRegistry.class)
  @ConditionalOnBean(MeterRegistry.class)
  static class Metrics {

    @Bean
    RateLimitMeters rateLimitMeters(ObjectProvider<MeterRegistry> registries, RateLimiter limiter,
        CountingStore decisions) {
      return new RateLimitMeters(registries, limiter, decisions);
    }
  }

  /** The meters, registered on every registry when created. */
  static final class RateLimitMeters {
    RateLimitMeters(ObjectProvider<MeterRegistry> registries, RateLimiter limiter, CountingStore decisions) {
      registries.orderedStream().forEach(registry -> {
        limiter.limits().keySet().forEach(name -> {
          CountingStore.Counts counts = decisions.counts(name);
          FunctionCounter.builder("ratelimit.decisions", counts, CountingStore.Counts::allowed)
              .tags("limit", name, "outcome", "allowed").description("Rate limit decisions").register(registry);
          FunctionCounter.builder("ratelimit.decisions", counts, CountingStore.Counts::denied)
              .tags("limit", name, "outcome", "denied").description("Rate limit decisions").register(registry);
        });
        Gauge.builder("ratelimit.store.available", limiter, l -> l.storeAvailable() ? 1 : 0)
            .description("1 while the rate limit store answers, 0 while limits follow their failure policy")
            .register(registry);
      });
      Timer[] timers = registries.orderedStream()
          .map(registry -> Timer.builder("ratelimit.store.latency").description("Time per rate limit store call")
              .register(registry))
          .toArray(Timer[]::new);
      if (timers.length > 0) {
        decisions.onLatency(nanos -> {
          for (Timer timer : timers) {
            timer.record(nanos, TimeUnit.NANOSECONDS);
          }
        });
      }
    }
  }

  /** {@code rateLimit} in {@code /actuator/health}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  static class Health {

    @Bean
    @ConditionalOnMissingBean(name = "rateLimitHealthIndicator")
    RateLimitHealthIndicator rateLimitHealthIndicator(RateLimiter limiter, RateLimitProperties properties) {
      return new RateLimitHealthIndicator(limiter, properties.getStoreFailure(),
          properties.getHealth().isDownWhenStoreUnavailable());
    }
  }

  /** {@code /actuator/ratelimits}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(Endpoint.class)
  static class Actuator {

    @Bean
    @ConditionalOnMissingBean
    RateLimitsEndpoint rateLimitsEndpoint(RateLimiter limiter, CountingStore decisions) {
      return new RateLimitsEndpoint(limiter, decisions);
    }
  }
}

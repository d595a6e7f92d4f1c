package dev.ratelimit.spring.boot;

import dev.ratelimit.Clock;
import dev.ratelimit.DecisionListener;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.spring.RateLimitingConfiguration;
import dev.ratelimit.store.InMemoryStore;
import dev.ratelimit.store.RateLimitStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
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
 * {@link RateLimiter}, {@code @RateLimited}, the {@code rateLimit} health and the
 * {@code ratelimits} endpoint (the meters: {@link RateLimitMetricsAutoConfiguration}). Every bean backs off when the application defines its own;
 * {@code ratelimit.enabled=false} turns it all off.
 *
 * @since 1.0
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RateLimitProperties.class)
@Import({RateLimitingConfiguration.class, RateLimitWebConfiguration.class, RateLimitMvcConfiguration.class,
    RateLimitStoreConfiguration.Redis.class, RateLimitStoreConfiguration.Bucket4j.class,
    RateLimitReloadConfiguration.class})
public final class RateLimitAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  Clock rateLimitClock(RateLimitProperties properties) {
    return properties.getClock() == RateLimitProperties.ClockKind.COARSE ? Clock.coarse() : Clock.system();
  }

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnProperty(name = "ratelimit.store", havingValue = "memory", matchIfMissing = true)
  RateLimitStore rateLimitStore(Clock clock) {
    return new InMemoryStore(clock);
  }

  /** The decisions per limit, for the meters and the endpoint: the limiter's listener. */
  @Bean
  @ConditionalOnMissingBean
  DecisionCounts rateLimitDecisions(RateLimitProperties properties) {
    return new DecisionCounts(properties.getLimits().keySet());
  }

  /**
   * The limiter, telling every {@link DecisionListener} bean of each decision (the counts, and
   * any the application adds); a remote store is timed when {@code ratelimit.store.latency} is
   * measured, the in-memory one never.
   */
  @Bean
  @ConditionalOnMissingBean
  RateLimiter rateLimiter(RateLimitProperties properties, RateLimitStore store, Clock clock,
      ObjectProvider<DecisionListener> listeners, ObjectProvider<TimedStore.Latency> latency) {
    TimedStore.Latency timer = latency.getIfAvailable();
    RateLimiter.Builder builder = RateLimiter.builder().clock(clock)
        .store(timer != null && store.canFail() ? new TimedStore(store, timer) : store)
        .storeFailure(properties.getStoreFailure());
    DecisionListener listener = Listeners.of(listeners.orderedStream().toList());
    if (listener != null) {
      builder.listener(listener);
    }
    properties.getLimits().forEach((name, spec) -> {
      try {
        builder.limit(name, spec);
      } catch (IllegalArgumentException e) {
        throw new InvalidLimitConfigurationException("ratelimit.limits." + name + "=" + spec + ": " + e.getMessage(), e);
      }
    });
    RateLimitPlans.add(properties, builder);
    RateLimitProperties.TopKeys top = properties.getTopKeys();
    if (top.isEnabled()) {
      try {
        builder.trackTopKeys(top.getSize(), top.getWindow());
      } catch (IllegalArgumentException e) {
        throw new InvalidLimitConfigurationException("ratelimit.top-keys (size=" + top.getSize() + ", window="
            + top.getWindow() + "): " + e.getMessage(), e);
      }
    }
    return builder.build();
  }

  /** {@code rateLimit} in {@code /actuator/health} on Spring Boot 4 (Boot 3's: rate-limit-spring-boot3). */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  static class Health {

    @Bean
    @ConditionalOnMissingBean(name = "rateLimitHealthIndicator")
    RateLimitHealthIndicator rateLimitHealthIndicator(RateLimiter limiter, RateLimitProperties properties) {
      return new RateLimitHealthIndicator(new RateLimitHealth(limiter, properties));
    }
  }

  /** {@code /actuator/ratelimits}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(Endpoint.class)
  static class Actuator {

    @Bean
    @ConditionalOnMissingBean
    RateLimitsEndpoint rateLimitsEndpoint(RateLimiter limiter, DecisionCounts decisions) {
      return new RateLimitsEndpoint(limiter, decisions);
    }
  }
}

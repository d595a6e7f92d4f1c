package dev.ratelimit.spring.boot3;

import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.spring.boot.RateLimitAutoConfiguration;
import dev.ratelimit.spring.boot.RateLimitHealth;
import dev.ratelimit.spring.boot.RateLimitProperties;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@code rateLimit} in {@code /actuator/health} on Spring Boot 3 (docs/design.md §7.4), whose
 * {@code HealthIndicator} Boot 4 moved to another package: the one piece of rate-limit-spring
 * that each Boot generation compiles against its own API. On Boot 4 its class condition fails
 * and rate-limit-spring's own indicator serves instead; the reading is {@link RateLimitHealth}'s
 * on both.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean({RateLimiter.class, RateLimitProperties.class})
public final class RateLimitBoot3AutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "rateLimitHealthIndicator")
  RateLimitHealthIndicator rateLimitHealthIndicator(RateLimiter limiter, RateLimitProperties properties) {
    return new RateLimitHealthIndicator(new RateLimitHealth(limiter, properties));
  }
}

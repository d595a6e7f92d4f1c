package dev.ratelimit.spring.boot;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * {@code rateLimit} in {@code /actuator/health} on Spring Boot 4: {@link RateLimitHealth}'s reading.
 *
 * @since 1.0
 */
public final class RateLimitHealthIndicator implements HealthIndicator {
  private final RateLimitHealth health;

  public RateLimitHealthIndicator(RateLimitHealth health) {
    this.health = health;
  }

  @Override
  public Health health() {
    RateLimitHealth.Reading reading = health.read();
    return (reading.up() ? Health.up() : Health.down()).withDetails(reading.details()).build();
  }
}

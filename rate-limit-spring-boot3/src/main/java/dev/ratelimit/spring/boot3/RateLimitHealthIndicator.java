package dev.ratelimit.spring.boot3;

import dev.ratelimit.spring.boot.RateLimitHealth;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/** {@code rateLimit} in {@code /actuator/health} on Spring Boot 3: {@link RateLimitHealth}'s reading. */
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

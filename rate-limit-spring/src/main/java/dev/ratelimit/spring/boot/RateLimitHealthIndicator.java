package dev.ratelimit.spring.boot;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.RateLimitStore;
import java.util.Locale;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * {@code rateLimit} in {@code /actuator/health}: UP with the store's name while it answers; while
 * it does not, the details say so and which failure policy the limits follow, and the status is
 * UP (the limits keep working by policy) unless {@code ratelimit.health.down-when-store-unavailable}.
 * It reads the limiter's view of the store, made by the decisions themselves, and sends nothing.
 *
 * @since 1.0
 */
public final class RateLimitHealthIndicator implements HealthIndicator {
  private final RateLimiter limiter;
  private final FailurePolicy storeFailure;
  private final boolean downWhenUnavailable;

  public RateLimitHealthIndicator(RateLimiter limiter, FailurePolicy storeFailure, boolean downWhenUnavailable) {
    this.limiter = limiter;
    this.storeFailure = storeFailure;
    this.downWhenUnavailable = downWhenUnavailable;
  }

  @Override
  public Health health() {
    Health.Builder health = limiter.storeAvailable() || !downWhenUnavailable ? Health.up() : Health.down();
    health.withDetail("store", storeName(limiter)).withDetail("storeAvailable", limiter.storeAvailable());
    if (!limiter.storeAvailable()) {
      String policy = storeFailure.name().toLowerCase(Locale.ROOT);
      health.withDetail("storeFailure", policy).withDetail("detail", "the store does not answer; limits without "
          + "their own failure= follow store-failure=" + policy + " until it does");
    }
    return health.build();
  }

  /** The store's class name, seen through the latency timer. */
  static String storeName(RateLimiter limiter) {
    RateLimitStore store = limiter.store();
    if (store instanceof TimedStore timed) {
      store = timed.inner();
    }
    return store.getClass().getSimpleName();
  }
}

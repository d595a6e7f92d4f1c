package dev.ratelimit.spring.boot;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.RateLimitStore;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What the {@code rateLimit} health component says (docs/design.md §7.4), apart from the
 * {@code HealthIndicator} type of each Spring Boot generation: Boot 4's
 * {@link RateLimitHealthIndicator} and Boot 3's in rate-limit-spring-boot3 both answer from it.
 * UP with the store's name while it answers; while it does not, the details say so and which
 * failure policy the limits follow, and the status is UP (the limits keep working by policy)
 * unless {@code ratelimit.health.down-when-store-unavailable}. It reads the limiter's view of the
 * store, made by the decisions themselves, and sends nothing.
 */
public final class RateLimitHealth {
  private final RateLimiter limiter;
  private final FailurePolicy storeFailure;
  private final boolean downWhenUnavailable;

  public RateLimitHealth(RateLimiter limiter, RateLimitProperties properties) {
    this(limiter, properties.getStoreFailure(), properties.getHealth().isDownWhenStoreUnavailable());
  }

  RateLimitHealth(RateLimiter limiter, FailurePolicy storeFailure, boolean downWhenUnavailable) {
    this.limiter = limiter;
    this.storeFailure = storeFailure;
    this.downWhenUnavailable = downWhenUnavailable;
  }

  /** One reading: whether the component is UP and its details, in the order they are shown. */
  public Reading read() {
    boolean available = limiter.storeAvailable();
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("store", storeName(limiter));
    details.put("storeAvailable", available);
    if (!available) {
      String policy = storeFailure.name().toLowerCase(Locale.ROOT);
      details.put("storeFailure", policy);
      details.put("detail", "the store does not answer; limits without their own failure= follow store-failure="
          + policy + " until it does");
    }
    return new Reading(available || !downWhenUnavailable, Collections.unmodifiableMap(details));
  }

  /** The store's class name, seen through the latency timer. */
  static String storeName(RateLimiter limiter) {
    RateLimitStore store = limiter.store();
    if (store instanceof TimedStore timed) {
      store = timed.inner();
    }
    return store.getClass().getSimpleName();
  }

  /** A reading of the component: UP or DOWN, and its details. */
  public record Reading(boolean up, Map<String, Object> details) {}
}

package dev.ratelimit.limiter;

import java.util.Objects;

/**
 * One part of an all-or-nothing {@link RateLimiter#limitAll} call: a named limit, a key, a count
 * and the plan whose spec applies ({@code null}: the default plan).
 *
 * @since 1.0
 */
public record LimitCall(String limit, String key, double count, String plan) {

  public LimitCall {
    Objects.requireNonNull(limit, "limit");
    Objects.requireNonNull(key, "key");
  }

  /** A call on the default plan. */
  public LimitCall(String limit, String key, double count) {
    this(limit, key, count, null);
  }

  public static LimitCall of(String limit, String key) {
    return new LimitCall(limit, key, 1);
  }

  public static LimitCall of(String limit, String key, double count) {
    return new LimitCall(limit, key, count);
  }

  /** This call on a plan ({@code null}: the default plan). */
  public LimitCall onPlan(String plan) {
    return new LimitCall(limit, key, count, plan);
  }
}

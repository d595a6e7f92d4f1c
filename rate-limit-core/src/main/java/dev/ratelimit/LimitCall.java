package dev.ratelimit;

import java.util.Objects;

/**
 * One part of an all-or-nothing {@link RateLimiter#limitAll} call: a named limit, a key and a
 * count.
 */
public record LimitCall(String limit, String key, double count) {

  public LimitCall {
    Objects.requireNonNull(limit, "limit");
    Objects.requireNonNull(key, "key");
  }

  public static LimitCall of(String limit, String key) {
    return new LimitCall(limit, key, 1);
  }

  public static LimitCall of(String limit, String key, double count) {
    return new LimitCall(limit, key, count);
  }
}

package dev.ratelimit;

import java.time.Duration;

/**
 * The answer to one request on one limit (docs/design.md §3).
 *
 * @param allowed whether the request was admitted
 * @param remaining units left after this call: exact, may be fractional, negative while a key is
 *     in debt after a reservation; for a check or a denial, the current level
 * @param limit the capacity
 * @param retryAfterMillis 0 when admitted without waiting; otherwise the earliest time from now,
 *     rounded up, at which the same request would be admitted if nothing else happened (for an
 *     admitted reserve: the wait before the reserved work may run)
 * @param resetAfterMillis time from now, rounded up, until the key is back to its full, fresh state
 * @since 1.0
 */
public record Decision(boolean allowed, double remaining, double limit, long retryAfterMillis,
    long resetAfterMillis) {

  public Duration retryAfter() {
    return Duration.ofMillis(retryAfterMillis);
  }

  public Duration resetAfter() {
    return Duration.ofMillis(resetAfterMillis);
  }
}

package dev.ratelimit;

/**
 * What a store does with one request on one key.
 *
 * @since 1.0
 */
public enum Operation {
  /** Consume the count if admitted; a denial changes nothing. */
  LIMIT,
  /** The same decision as {@link #LIMIT} without consuming anything. */
  CHECK,
  /** Consume now, even into debt down to {@code -maxReserved}; the decision says how long to wait. */
  RESERVE
}

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
  RESERVE,
  /**
   * Consume the count whatever the key holds: units already spent, such as the part of a
   * charge's actual cost above its estimate. It may leave the key in debt, down to one capacity
   * (or {@code maxReserved}, when that is finite and deeper), never deeper: the rest is not taken
   * (docs/design.md §2.4). The decision is the key's state afterwards, as a refund's is: a check
   * for 0 units, not allowed while the key is in debt.
   */
  TAKE
}

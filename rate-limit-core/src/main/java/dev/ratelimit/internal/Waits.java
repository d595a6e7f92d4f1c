package dev.ratelimit.internal;

import java.util.function.LongPredicate;

/**
 * For stores that confirm their waits: the first whole millisecond at which something that stays
 * true once it holds (a level reaching a count, as time passes and nothing else happens) holds.
 */
public final class Waits {
  /** A wait that stands for "not within any time a caller could wait" (about 73 million years). */
  public static final long NEVER = Long.MAX_VALUE / 4;

  private Waits() {}

  /**
   * The smallest {@code t ≥ 1} with {@code holds(t)}, given that {@code holds(0)} is false and that
   * {@code holds} stays true once true. The estimate is usually right or one off; a gallop and a
   * binary search from it make a poor one cost a few steps, never a wrong answer.
   *
   * @return that millisecond, or {@link #NEVER} if it holds at none before
   */
  public static long first(LongPredicate holds, long estimate) {
    return first(holds, estimate, NEVER);
  }

  /**
   * As {@link #first(LongPredicate, long)}, asking {@code holds} about no time beyond {@code never}
   * (for a store whose times overflow sooner) and answering {@code never} when it holds at none.
   */
  public static long first(LongPredicate holds, long estimate, long never) {
    long high = Math.min(never, Math.max(1, estimate));
    long low;
    if (holds.test(high)) {
      if (!holds.test(high - 1)) {
        return high;
      }
      low = high - 1;
      for (long step = 2; low > 0 && holds.test(low); step *= 2) {
        high = low;
        low = Math.max(0, high - step);
      }
    } else {
      low = high;
      for (long step = 1; !holds.test(high); step *= 2) {
        if (high >= never) {
          return never; // callers refuse counts that can never be admitted; this is a backstop
        }
        low = high;
        high = Math.min(never, high + step);
      }
    }
    // false at low, true at high
    while (high - low > 1) {
      long middle = low + (high - low) / 2;
      if (holds.test(middle)) {
        high = middle;
      } else {
        low = middle;
      }
    }
    return high;
  }
}

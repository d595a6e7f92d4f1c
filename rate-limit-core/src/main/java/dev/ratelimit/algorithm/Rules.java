package dev.ratelimit.algorithm;

import dev.ratelimit.Decision;
import dev.ratelimit.store.Operation;

/**
 * The rules every algorithm shares: what a request needs, when units count as reached, how waits
 * are rounded. Each algorithm supplies only its level over time.
 */
final class Rules {
  /**
   * Units within this fraction of the capacity count as reached, so that float noise (0.1 + 0.2
   * taken from 0.3) never denies a request that is exactly admissible. Far below the 1e-9 that
   * separates every real boundary in the conformance vectors.
   */
  private static final double TOLERANCE = 1e-12;

  /** A wait that stands for "not within any time a caller could wait" (about 73 million years). */
  static final long NEVER = Long.MAX_VALUE / 4;

  private Rules() {}

  /** The lowest level a request may leave behind: 0, or {@code -maxReserved} for a reserve. */
  static double floor(Operation op, double maxReserved) {
    return op == Operation.RESERVE ? -maxReserved : 0;
  }

  /** Whether {@code level} reaches {@code units}, up to float noise relative to the capacity. */
  static boolean reaches(double level, double units, double capacity) {
    return level >= units - TOLERANCE * Math.max(1, capacity);
  }

  /** Whether a request changes the stored state. */
  static boolean consumes(Decision decision, Operation op, double count) {
    return decision.allowed() && op != Operation.CHECK && count > 0;
  }

  /** A first guess at a wait, rounded up to whole milliseconds (never negative). */
  static long ceil(double millis) {
    if (!(millis > 0)) {
      return 0;
    }
    return millis >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) Math.ceil(millis);
  }

  /** Levels of one state over time, as one algorithm computes them. */
  @FunctionalInterface
  interface LevelAt {
    double level(long time);
  }

  /**
   * The first whole millisecond from {@code now} at which the level reaches {@code units}:
   * exact by the algorithm's own arithmetic, so never early and never late because of rounding.
   * The estimate is usually right or one off; a search from it (levels never fall as time
   * passes when nothing else happens) makes a poor one cost a few steps, never a wrong answer.
   * The level at {@code now} must not reach the units.
   */
  static long firstReaching(LevelAt levels, long now, double units, double capacity, double estimate) {
    long high = Math.min(NEVER, Math.max(1, ceil(estimate)));
    long low;
    if (reaches(levels.level(now + high), units, capacity)) {
      if (!reaches(levels.level(now + high - 1), units, capacity)) {
        return high;
      }
      low = high - 1;
      for (long step = 2; low > 0 && reaches(levels.level(now + low), units, capacity); step *= 2) {
        high = low;
        low = Math.max(0, high - step);
      }
    } else {
      low = high;
      for (long step = 1; !reaches(levels.level(now + high), units, capacity); step *= 2) {
        if (high >= NEVER) {
          return NEVER; // callers refuse counts that can never be admitted; this is a backstop
        }
        low = high;
        high = Math.min(NEVER, high + step);
      }
    }
    // levels at low don't reach, at high do
    while (high - low > 1) {
      long middle = low + (high - low) / 2;
      if (reaches(levels.level(now + middle), units, capacity)) {
        high = middle;
      } else {
        low = middle;
      }
    }
    return high;
  }
}

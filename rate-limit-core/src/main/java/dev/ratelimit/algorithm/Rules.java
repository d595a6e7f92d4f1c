package dev.ratelimit.algorithm;

import dev.ratelimit.Decision;
import dev.ratelimit.Operation;
import dev.ratelimit.internal.Waits;

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

  /** Float noise in a level, relative to the larger of the capacity and the units: about 50 ulps. */
  private static final double NOISE = 1e-14;

  /**
   * Eight ulps of a time, as a fraction of it: {@code ulp(x) ≤ x·2⁻⁵²} for every time at least 1,
   * so {@code x·2⁻⁴⁹} bounds eight of them with a multiply (Math.ulp costs a branchy decode).
   */
  private static final double EIGHT_ULPS = 0x1p-49;

  /** A wait that stands for "not within any time a caller could wait". */
  static final long NEVER = Waits.NEVER;

  private Rules() {}

  /** The lowest level a request may leave behind: 0, or {@code -maxReserved} for a reserve. */
  static double floor(Operation op, double maxReserved) {
    return op == Operation.RESERVE ? -maxReserved : 0;
  }

  /**
   * How deep in debt a take ({@link Operation#TAKE}) may leave a key: one capacity, or
   * {@code maxReserved} when that is finite and deeper. One capacity is a whole burst: a key that
   * far in debt admits nothing for a whole refill time (a window, a period) after it would have
   * been empty, so an overrun up to what the limit ever admits at once is paid in full; without a
   * bound one huge count would lock the key for years and push its state past what a double
   * holds exactly. A limit whose reservations may go deeper lets a take go as deep.
   */
  static double debtBound(double capacity, double maxReserved) {
    return Double.isInfinite(maxReserved) ? capacity : Math.max(capacity, maxReserved);
  }

  /** How far below a boundary a level still counts as reaching it, for a limit of this capacity. */
  static double tolerance(double capacity) {
    return TOLERANCE * Math.max(1, capacity);
  }

  /** Whether {@code level} reaches {@code units}, up to the {@link #tolerance}. */
  static boolean reaches(double level, double units, double tolerance) {
    return level >= units - tolerance;
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
   * The estimate rounded up, when that is exactly the first whole millisecond at which the level
   * reaches the units; -1 when {@link #firstReaching} must search. A level rising linearly
   * ({@code slope} units per millisecond) crosses the boundary at the estimate (the tolerance is
   * already in it); when that crossing is far from a whole millisecond, farther in units than
   * float noise can move a level (a few ulps of the units, and of the times it is computed from,
   * which are near {@code now} on the algorithm's timeline), rounding up is exact as it is. Small,
   * so that it inlines into the decision path.
   */
  static long exactCeil(double estimate, double slope, double units, double capacity, long now) {
    if (slope > 0 && estimate > 0 && estimate < NEVER) {
      double rounded = Math.ceil(estimate);
      double above = rounded - estimate;
      double margin = (above < 0.5 ? above : 1 - above) * slope;
      double noise = NOISE * Math.max(Math.max(1, capacity), Math.abs(units))
          + ((double) Math.abs(now) + rounded) * EIGHT_ULPS * slope;
      if (margin > noise) {
        return (long) rounded;
      }
    }
    return -1;
  }

  /**
   * The first whole millisecond from {@code now} at which the level reaches {@code units}:
   * exact by the algorithm's own arithmetic, so never early and never late because of rounding.
   * The estimate (where the level crosses {@code units − tolerance}) is usually right or one off;
   * a search from it (levels never fall as time passes when nothing else happens) makes a poor
   * one cost a few steps, never a wrong answer. The level at {@code now} must not reach the
   * units.
   */
  static long firstReaching(LevelAt levels, long now, double units, double tolerance, double estimate) {
    return Waits.first(t -> reaches(levels.level(now + t), units, tolerance), ceil(estimate));
  }
}

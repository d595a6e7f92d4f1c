package dev.ratelimit.algorithm;

import dev.ratelimit.Decision;
import dev.ratelimit.Operation;

/**
 * An algorithm whose state per key is one double, so a store can keep it in place and update it
 * with one compare-and-set, allocating nothing. Token bucket, GCRA and fixed window fit.
 *
 * <p>Beside the state, a key may keep a <em>stamp</em>: the latest time at which its state was
 * stored. Algorithms that never let a clock going back add units ({@link #usesStamp()}) read time
 * as {@code max(now, stamp)}. Times here are milliseconds on the store's own timeline.
 *
 * <p>A store runs {@link #next} inside its compare-and-set loop (a few operations, so that
 * contending threads rarely collide) and builds the decision once the state is written:
 * {@link #admitted} after a write, {@link #decide} when nothing is written. Every method is a
 * pure function: no clock reads, no I/O, safe to retry.
 */
public abstract class WordAlgorithm {
  /** The state of a key never seen (or reset): full. Every subclass reads it as capacity. */
  public static final double FRESH = Double.NEGATIVE_INFINITY;
  /** The stamp of a key never stored. */
  public static final long NO_STAMP = Long.MIN_VALUE;

  protected final double capacity;
  protected final double maxReserved;
  protected final double tolerance;
  /** How deep in debt a take may leave a key ({@link Rules#debtBound}). */
  private final double debtBound;

  protected WordAlgorithm(double capacity, double maxReserved) {
    this.capacity = capacity;
    this.maxReserved = maxReserved;
    this.tolerance = Rules.tolerance(capacity);
    this.debtBound = Rules.debtBound(capacity, maxReserved);
  }

  /** Units available at {@code now}: at most the capacity, negative while in debt. */
  public abstract double level(double state, long stamp, long now);

  /** The state whose level at {@code now} is {@code level}. */
  protected abstract double withLevel(double state, long stamp, long now, double level);

  /**
   * An estimate, in milliseconds from {@code now}, of when the level (which is {@code level} at
   * {@code now}) reaches {@code units}.
   */
  protected abstract double estimateWait(double state, long stamp, long now, double level, double units);

  /** Units per millisecond where the level rises linearly; 0 where it rises in steps. */
  protected abstract double slope();

  /** Whether this algorithm reads the stamp (and so needs it stored). */
  public abstract boolean usesStamp();

  /**
   * The state to write for an admitted request that consumes (a take does unless the key is
   * already at its debt bound), or {@code NaN} when nothing is to be written: a denial, a check,
   * 0 units, a take that takes nothing. The decision follows from {@link #admitted} once written,
   * or from {@link #decide} when not.
   */
  public final double next(double state, long stamp, Operation op, double count, long maxWait, long now) {
    if (op == Operation.CHECK || count == 0) {
      return Double.NaN;
    }
    if (op != Operation.LIMIT) {
      return nextInDebt(state, stamp, op, count, maxWait, now);
    }
    double after = level(state, stamp, now) - count;
    return Rules.reaches(after, 0, tolerance) ? withLevel(state, stamp, now, after > 0 ? after : 0) : Double.NaN;
  }

  /** {@link #next} for the requests that may leave the key in debt: a reservation, a take. */
  private double nextInDebt(double state, long stamp, Operation op, double count, long maxWait, long now) {
    if (op == Operation.TAKE) {
      return take(state, stamp, count, now);
    }
    Decision decision = decide(state, stamp, op, count, maxWait, now);
    return decision.allowed() ? withLevel(state, stamp, now, decision.remaining()) : Double.NaN;
  }

  /**
   * The state with {@code count} units taken whatever the level: into debt down to the
   * {@link Rules#debtBound}, never deeper (the rest is not taken); {@code NaN} when nothing is
   * taken (a key at the bound, or deeper by a reservation, stays as it is and, as a denial,
   * stores nothing).
   */
  private double take(double state, long stamp, double count, long now) {
    double level = level(state, stamp, now);
    double after = Math.max(level - count, Math.min(level, -debtBound));
    // within the tolerance of the level, nothing is taken: a key at the bound but for float noise
    // stays as it is, its stamp too
    return Rules.reaches(after, level, tolerance) ? Double.NaN : withLevel(state, stamp, now, after);
  }

  /**
   * The decision for a request whose {@link #next} state was written (its stamp raised to now);
   * for a take, the state afterwards as a check for 0 units.
   */
  public final Decision admitted(double next, long nextStamp, Operation op, long now) {
    if (op == Operation.TAKE) {
      return decide(next, nextStamp, Operation.CHECK, 0, 0, now);
    }
    double level = level(next, nextStamp, now);
    long wait = op == Operation.RESERVE ? waitUntil(next, nextStamp, now, level, 0) : 0;
    return new Decision(true, level, capacity, wait, waitUntil(next, nextStamp, now, level, capacity));
  }

  /**
   * The decision for one request, changing nothing: for checks, denials, 0 units. A take that
   * changes nothing (0 units) answers as a take does: a check for 0 units.
   */
  public final Decision decide(double state, long stamp, Operation op, double count, long maxWait, long now) {
    if (op == Operation.TAKE) {
      return decide(state, stamp, Operation.CHECK, 0, 0, now);
    }
    double level = level(state, stamp, now);
    if (!Rules.reaches(level - count, Rules.floor(op, maxReserved), tolerance)) {
      return denied(state, stamp, op, count, now, level);
    }
    return admissible(state, stamp, op, count, maxWait, now, level);
  }

  /** A denial: the current level, and when the same request would be admitted. */
  private Decision denied(double state, long stamp, Operation op, double count, long now, double level) {
    double needed = op == Operation.RESERVE ? count - maxReserved : count;
    return new Decision(false, level, capacity, waitUntil(state, stamp, now, level, needed),
        waitUntil(state, stamp, now, level, capacity));
  }

  /** A request that fits: a check, 0 units, or a reservation that may still be too far off. */
  private Decision admissible(double state, long stamp, Operation op, double count, long maxWait, long now,
      double level) {
    double floor = Rules.floor(op, maxReserved);
    double after = level - count;
    boolean consumes = op != Operation.CHECK && count > 0;
    after = Math.max(after, floor);
    double next = consumes ? withLevel(state, stamp, now, after) : state;
    long nextStamp = consumes ? Math.max(stamp, now) : stamp;
    // a reservation, even of 0 units, runs once the key is out of debt
    long wait = op == Operation.RESERVE ? waitUntil(next, nextStamp, now, 0) : 0;
    if (wait > maxWait || wait >= Rules.NEVER) {
      // the reservation would fit, but not within the caller's wait: as soon as it would; or its
      // turn never comes (a huge count on an unbounded maxReserved), and it takes nothing
      return new Decision(false, level, capacity, wait >= Rules.NEVER ? Rules.NEVER : wait - maxWait,
          waitUntil(state, stamp, now, level, capacity));
    }
    return new Decision(true, op == Operation.CHECK ? level : after, capacity, wait,
        consumes ? waitUntil(next, nextStamp, now, capacity) : waitUntil(state, stamp, now, level, capacity));
  }

  /** The state with {@code count} unused units given back, never above capacity. */
  public final double refund(double state, long stamp, double count, long now) {
    return withLevel(state, stamp, now, Math.min(capacity, level(state, stamp, now) + count));
  }

  /**
   * Units used at {@code now}: the capacity less the level (more than the capacity while in
   * debt). What a key carries over to another limit of its kind (docs/design.md §2.7).
   */
  public final double used(double state, long stamp, long now) {
    return capacity - level(state, stamp, now);
  }

  /**
   * The state of a key carried over from another limit with {@code used} units used at
   * {@code now}: they stay used, capped by this capacity (debt beyond it is forgiven).
   */
  public final double carried(double used, long now) {
    return withLevel(FRESH, NO_STAMP, now, capacity - Math.min(Math.max(used, 0), capacity));
  }

  /** Milliseconds until the key is back to its full, fresh state (0: it is, and may be dropped). */
  public final long untilFresh(double state, long stamp, long now) {
    return waitUntil(state, stamp, now, capacity);
  }

  private long waitUntil(double state, long stamp, long now, double units) {
    return waitUntil(state, stamp, now, level(state, stamp, now), units);
  }

  private long waitUntil(double state, long stamp, long now, double level, double units) {
    if (Rules.reaches(level, units, tolerance)) {
      return 0;
    }
    double estimate = estimateWait(state, stamp, now, level, units - tolerance);
    long exact = Rules.exactCeil(estimate, slope(), units, capacity, now);
    return exact >= 0 ? exact : Rules.firstReaching(t -> level(state, stamp, t), now, units, tolerance, estimate);
  }
}

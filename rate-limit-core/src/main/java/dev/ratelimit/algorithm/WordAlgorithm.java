package dev.ratelimit.algorithm;

import dev.ratelimit.Decision;
import dev.ratelimit.store.Operation;

/**
 * An algorithm whose state per key is one double, so a store can keep it in place and update it
 * with one compare-and-set, allocating nothing. Token bucket, GCRA and fixed window fit.
 *
 * <p>Beside the state, a key may keep a <em>stamp</em>: the latest time at which its state was
 * stored. Algorithms that never let a clock going back add units ({@link #usesStamp()}) read time
 * as {@code max(now, stamp)}. Times here are milliseconds on the store's own timeline.
 *
 * <p>Every method is a pure function: no clock reads, no I/O, safe to retry in a CAS loop.
 */
public abstract class WordAlgorithm {
  /** The state of a key never seen (or reset): full. Every subclass reads it as capacity. */
  public static final double FRESH = Double.NEGATIVE_INFINITY;
  /** The stamp of a key never stored. */
  public static final long NO_STAMP = Long.MIN_VALUE;

  protected final double capacity;
  protected final double maxReserved;

  protected WordAlgorithm(double capacity, double maxReserved) {
    this.capacity = capacity;
    this.maxReserved = maxReserved;
  }

  /** Units available at {@code now}: at most the capacity, negative while in debt. */
  public abstract double level(double state, long stamp, long now);

  /** The state whose level at {@code now} is {@code level}. */
  protected abstract double withLevel(double state, long stamp, long now, double level);

  /** An estimate, in milliseconds from {@code now}, of when the level reaches {@code units}. */
  protected abstract double estimateWait(double state, long stamp, long now, double units);

  /** Whether this algorithm reads the stamp (and so needs it stored). */
  public abstract boolean usesStamp();

  /** The decision for one request. Pure: the store applies {@link #after} if it consumed. */
  public final Decision decide(double state, long stamp, Operation op, double count, long maxWait, long now) {
    double level = level(state, stamp, now);
    double floor = Rules.floor(op, maxReserved);
    double after = level - count;
    if (!Rules.reaches(after, floor, capacity)) {
      double needed = op == Operation.RESERVE ? count - maxReserved : count;
      return new Decision(false, level, capacity, waitUntil(state, stamp, now, needed),
          waitUntil(state, stamp, now, capacity));
    }
    boolean consumes = op != Operation.CHECK && count > 0;
    after = Math.max(after, floor);
    double next = consumes ? withLevel(state, stamp, now, after) : state;
    long nextStamp = consumes ? Math.max(stamp, now) : stamp;
    // a reservation, even of 0 units, runs once the key is out of debt
    long wait = op == Operation.RESERVE ? waitUntil(next, nextStamp, now, 0) : 0;
    if (wait > maxWait) {
      // the reservation would fit, but not within the caller's wait: as soon as it would
      return new Decision(false, level, capacity, wait - maxWait, waitUntil(state, stamp, now, capacity));
    }
    return new Decision(true, op == Operation.CHECK ? level : after, capacity, wait,
        waitUntil(next, nextStamp, now, capacity));
  }

  /** The state after an admitted, consuming {@link #decide} with the same arguments. */
  public final double after(double state, long stamp, Operation op, double count, long now) {
    double level = level(state, stamp, now);
    return withLevel(state, stamp, now, Math.max(level - count, Rules.floor(op, maxReserved)));
  }

  /** Whether a decision consumed, so that the store must write {@link #after}. */
  public final boolean consumed(Decision decision, Operation op, double count) {
    return Rules.consumes(decision, op, count);
  }

  /** The state with {@code count} unused units given back, never above capacity. */
  public final double refund(double state, long stamp, double count, long now) {
    return withLevel(state, stamp, now, Math.min(capacity, level(state, stamp, now) + count));
  }

  /** Milliseconds until the key is back to its full, fresh state (0: it is, and may be dropped). */
  public final long untilFresh(double state, long stamp, long now) {
    return waitUntil(state, stamp, now, capacity);
  }

  private long waitUntil(double state, long stamp, long now, double units) {
    if (Rules.reaches(level(state, stamp, now), units, capacity)) {
      return 0;
    }
    return Rules.firstReaching(t -> level(state, stamp, t), now, units, capacity,
        estimateWait(state, stamp, now, units));
  }
}

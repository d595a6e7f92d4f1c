package dev.ratelimit.algorithm;

import dev.ratelimit.Decision;
import dev.ratelimit.Operation;

/**
 * An algorithm whose state per key is an immutable object ({@code null}: a key never seen, full),
 * replaced as a whole on each consuming request: the sliding kinds and quotas. Times are epoch
 * milliseconds. Every method is a pure function, safe to retry in a CAS loop.
 *
 * @param <S> the state type
 */
public abstract class ObjectAlgorithm<S> {
  protected final double capacity;
  protected final double tolerance;
  /** How deep in debt a take may leave a key ({@link Rules#debtBound}: one capacity, these kinds reserve nothing). */
  private final double debtBound;

  protected ObjectAlgorithm(double capacity) {
    this.capacity = capacity;
    this.tolerance = Rules.tolerance(capacity);
    this.debtBound = Rules.debtBound(capacity, 0);
  }

  /** One request's decision and the state it leaves (the same instance when nothing changed). */
  public record Step<S>(S state, Decision decision) {}

  /** Units available at {@code now} (at most the capacity). */
  public abstract double level(S state, long now);

  /** The state after admitting {@code count} units at {@code now}. */
  protected abstract S consume(S state, long now, double count);

  /** The state with {@code count} unused units given back ({@code null} when nothing is left). */
  public abstract S refund(S state, long now, double count);

  /** An estimate, in milliseconds from {@code now}, of when the level reaches {@code units}. */
  protected abstract double estimateWait(S state, long now, double units);

  /**
   * Applies one request; these kinds have no reservations, so {@code op} is LIMIT, CHECK or TAKE
   * (whose decision is the state afterwards as a check for 0 units).
   */
  public final Step<S> step(S state, Operation op, double count, long now) {
    if (op == Operation.TAKE) {
      S next = take(state, now, count);
      return new Step<>(next, step(next, Operation.CHECK, 0, now).decision());
    }
    double level = level(state, now);
    if (!Rules.reaches(level, count, tolerance)) {
      return new Step<>(state, new Decision(false, level, capacity, waitUntil(state, now, count),
          untilFresh(state, now)));
    }
    if (op == Operation.CHECK || count == 0) {
      return new Step<>(state, new Decision(true, op == Operation.CHECK ? level : level - count, capacity, 0,
          untilFresh(state, now)));
    }
    S next = consume(state, now, count);
    return new Step<>(next, new Decision(true, Math.max(0, level - count), capacity, 0, untilFresh(next, now)));
  }

  /**
   * The state with {@code count} units taken whatever the level: used above the capacity, until
   * they slide out or the period ends, down to a level of {@code −capacity} at most (the rest is
   * not taken); the same instance when nothing is taken.
   */
  public final S take(S state, long now, double count) {
    double units = Math.min(count, level(state, now) + debtBound);
    return units > tolerance ? consume(state, now, units) : state; // float noise at the bound takes nothing
  }

  /** Milliseconds until the key is back to its full, fresh state (0: it is, and may be dropped). */
  public final long untilFresh(S state, long now) {
    return state == null ? 0 : waitUntil(state, now, capacity);
  }

  private long waitUntil(S state, long now, double units) {
    if (Rules.reaches(level(state, now), units, tolerance)) {
      return 0;
    }
    double estimate = estimateWait(state, now, units - tolerance);
    return Rules.firstReaching(t -> level(state, t), now, units, tolerance, estimate);
  }
}

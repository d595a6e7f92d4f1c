package dev.ratelimit.redis;

import dev.ratelimit.Decision;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The units this node holds of one key: taken from Redis by lease takes, spent by this node's
 * threads with a compare-and-set each, given back when the lease expires. Units only come from
 * takes Redis admitted and only leave by a spend or by {@link #retire}, never below 0: what this
 * node admits from a lease is at most what Redis counted as taken (docs/design.md §4.3.3).
 *
 * <p>A retired lease (expired, returned) holds NaN: no spend succeeds on it and no take adds to
 * it, so a take that returns after its lease expired gives its units straight back.
 */
final class Lease {
  private static final long EMPTY = Double.doubleToRawLongBits(0.0);
  private static final long RETIRED = Double.doubleToRawLongBits(Double.NaN);

  /** The units held, as double bits: so that spending is one compare-and-set. */
  private final AtomicLong units = new AtomicLong(EMPTY);
  /** The key's take in flight on this node, or {@code null}: one at a time. */
  final AtomicReference<CompletableFuture<Void>> taking = new AtomicReference<>();
  private final AtomicBoolean expiring = new AtomicBoolean();
  private final AtomicBoolean seen = new AtomicBoolean();
  /**
   * Whether the last take found too few units for a lease: requests that find a take in flight
   * then go to Redis at once (coalesced) rather than queue behind it for units it won't bring.
   */
  volatile boolean scarce;
  /** Redis's remaining units and resetAfter as the last take left them, for the decisions made here. */
  private volatile double remainingInRedis;
  private volatile long resetAfterMillis;

  /**
   * Spends {@code count} units if this node holds them.
   *
   * @return the units left, or -1 if it holds fewer than {@code count} (or the lease is retired)
   */
  double spend(double count) {
    for (;;) {
      long bits = units.get();
      double held = Double.longBitsToDouble(bits);
      if (!(held >= count)) {
        return -1;
      }
      double left = held - count;
      if (units.compareAndSet(bits, Double.doubleToRawLongBits(left))) {
        return left;
      }
    }
  }

  /**
   * Adds the units of a take Redis granted.
   *
   * @return false if the lease is retired: the caller gives them back
   */
  boolean add(double granted, double remaining, long resetAfter) {
    remainingInRedis = remaining;
    resetAfterMillis = resetAfter;
    for (;;) {
      long bits = units.get();
      if (bits == RETIRED) {
        return false;
      }
      double next = Double.longBitsToDouble(bits) + granted;
      if (units.compareAndSet(bits, Double.doubleToRawLongBits(next))) {
        return true;
      }
    }
  }

  /**
   * Whether this is the key's first request in this lease's life: it goes to Redis alone, and
   * only a key asked again within a lifetime takes leases (a key seen once per lifetime would
   * pay a take and a give-back for one request).
   */
  boolean firstRequest() {
    return !seen.get() && seen.compareAndSet(false, true);
  }

  /** Whether the caller is the first to arrange this lease's expiry. */
  boolean firstToExpire() {
    return expiring.compareAndSet(false, true);
  }

  /** Retires the lease: the units it held, to be given back (0 if already retired). */
  double retire() {
    long bits = units.getAndSet(RETIRED);
    return bits == RETIRED ? 0 : Double.longBitsToDouble(bits);
  }

  boolean retired() {
    return units.get() == RETIRED;
  }

  /**
   * A request admitted from the lease: remaining is what Redis had left at the last take plus
   * what this node still holds (what could be admitted without other nodes), resetAfter as of
   * that take; neither reads Redis again.
   */
  Decision admitted(double left, double capacity) {
    return new Decision(true, remainingInRedis + left, capacity, 0, resetAfterMillis);
  }
}

package dev.ratelimit;

import dev.ratelimit.store.KeySpace;
import dev.ratelimit.store.Operation;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.RateLimitStore.Charge;
import java.util.List;
import java.util.concurrent.CompletionStage;

/** A limit bound to a store under its name: checks every count, then asks the store. */
class BoundLimit {
  final String name;
  final Limit limit;
  final KeySpace space;
  private final boolean reservable;
  private final double largestLimit;
  private final double largestReserve;

  BoundLimit(String name, Limit limit, KeySpace space) {
    this.name = name;
    this.limit = limit;
    this.space = space;
    this.reservable = limit.reservable();
    this.largestLimit = largestCount(Operation.LIMIT);
    this.largestReserve = largestCount(Operation.RESERVE);
  }

  static BoundLimit bind(RateLimitStore store, String name, Limit limit) {
    return limit.shards() > 1 ? new ShardedLimit(store, name, limit) : new BoundLimit(name, limit, store.bind(name, limit));
  }

  /** The largest count an operation could ever admit (computed once, at construction). */
  double largestCount(Operation op) {
    return op == Operation.RESERVE ? limit.capacity() + limit.maxReserved() : limit.capacity();
  }

  /**
   * Refuses what can never be decided: a count that is not a finite number ≥ 0, one above what
   * the limit can ever admit, a reservation on a kind without them.
   */
  final void check(Operation op, double count) {
    if (!(count >= 0) || Double.isInfinite(count)) {
      throw new IllegalArgumentException(
          "count must be a finite number, 0 or more, but was " + count + " (limit '" + name + "')");
    }
    if (op == Operation.RESERVE && !reservable) {
      throw new UnsupportedOperationException("limit '" + name + "' is a " + limit.kind()
          + ", which has no reservations; reserve and acquire with a wait work on token-bucket, gcra and fixed-window");
    }
    double largest = op == Operation.RESERVE ? largestReserve : largestLimit;
    if (count > largest) {
      throw new IllegalArgumentException("count " + SpecNumbers.format(count) + " is above "
          + (op == Operation.RESERVE ? "capacity + maxReserved, " : "the capacity, ") + SpecNumbers.format(largest)
          + ", of limit '" + name + "': it could never be admitted");
    }
  }

  Decision apply(String key, Operation op, double count, long maxWait) {
    check(op, count);
    return space.apply(key, op, count, maxWait);
  }

  CompletionStage<Decision> applyAsync(String key, Operation op, double count, long maxWait) {
    check(op, count);
    return space.applyAsync(key, op, count, maxWait);
  }

  void reset(String key) {
    space.reset(key);
  }

  CompletionStage<Void> resetAsync(String key) {
    return space.resetAsync(key);
  }

  Decision refund(String key, double count) {
    checkRefund(count);
    return space.refund(key, count);
  }

  CompletionStage<Decision> refundAsync(String key, double count) {
    checkRefund(count);
    return space.refundAsync(key, count);
  }

  final void checkRefund(double count) {
    if (!(count >= 0) || Double.isInfinite(count)) {
      throw new IllegalArgumentException(
          "refund count must be a finite number, 0 or more, but was " + count + " (limit '" + name + "')");
    }
  }

  /** The store charges for one part of an all-or-nothing call. */
  List<Charge> charges(String key, double count) {
    check(Operation.LIMIT, count);
    return List.of(new Charge(space, key, count));
  }

  /** This call's decision from the decisions of its charges. */
  Decision combine(List<Decision> decisions) {
    return decisions.get(0);
  }

  @Override
  public String toString() {
    return name + " = " + limit;
  }
}

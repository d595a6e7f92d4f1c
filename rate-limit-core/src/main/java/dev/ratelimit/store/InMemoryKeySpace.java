package dev.ratelimit.store;

import dev.ratelimit.Clock;
import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;

/** The keys of one limit in an {@link InMemoryStore}. */
abstract class InMemoryKeySpace implements KeySpace {
  private final InMemoryStore store;
  /** The store's, held here: one load less on every decision's way to the time. */
  private final Clock clock;
  private final String name;
  private final Limit limit;

  InMemoryKeySpace(InMemoryStore store, String name, Limit limit) {
    this.store = store;
    this.clock = store.clock();
    this.name = name;
    this.limit = limit;
  }

  InMemoryStore store() {
    return store;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Limit limit() {
    return limit;
  }

  @Override
  public Decision apply(String key, Operation op, double count, long maxWaitMillis) {
    return applyAt(key, op, count, maxWaitMillis, clock.millis());
  }

  @Override
  public boolean admit(String key, double count) {
    return admitAt(key, count, clock.millis());
  }

  @Override
  public Decision refund(String key, double count) {
    return refundAt(key, count, clock.millis());
  }

  /** One request at a given time (all charges of an all-or-nothing call share one). */
  abstract Decision applyAt(String key, Operation op, double count, long maxWaitMillis, long now);

  /** {@link #admit} at a given time; a space may skip what a decision holds beyond its answer. */
  boolean admitAt(String key, double count, long now) {
    return applyAt(key, Operation.LIMIT, count, 0, now).allowed();
  }

  abstract Decision refundAt(String key, double count, long now);

  /**
   * Visits the next key under this space's cursor (touched only under the store's hand lock): a
   * fresh key is dropped, as its loss changes no decision; any other is offered to {@code best}
   * when there is one. False, visiting nothing, when the cursor has passed every key: it starts
   * over on the next call.
   */
  abstract boolean visitNext(long now, EvictionCandidate best);

  /**
   * Folds the key's state into this space's sketch, then drops it, if {@code cell} still holds
   * it; true if it went. The sketch is written first, so that a caller who finds the key gone
   * finds its usage there.
   */
  abstract boolean evict(String key, Object cell, long now);

  /** Whether the key is in the map now (for tests: evicted keys are not). */
  abstract boolean holds(String key);

  @Override
  public String toString() {
    return name + " = " + limit;
  }
}

package dev.ratelimit.store;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;

/** The keys of one limit in an {@link InMemoryStore}. */
abstract class InMemoryKeySpace implements KeySpace {
  private final InMemoryStore store;
  private final String name;
  private final Limit limit;

  InMemoryKeySpace(InMemoryStore store, String name, Limit limit) {
    this.store = store;
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
    return applyAt(key, op, count, maxWaitMillis, store.clock().millis());
  }

  @Override
  public Decision refund(String key, double count) {
    return refundAt(key, count, store.clock().millis());
  }

  /** One request at a given time (all charges of an all-or-nothing call share one). */
  abstract Decision applyAt(String key, Operation op, double count, long maxWaitMillis, long now);

  abstract Decision refundAt(String key, double count, long now);

  /** Drops every key whose state equals a fresh one. */
  abstract void dropFresh(long now);

  /** Appends each key's time until fresh to {@code into} from {@code at}; returns the next index. */
  abstract int collectUntilFresh(long now, long[] into, int at);

  /** Evicts keys fresh within {@code threshold} ms while {@code left[0] > 0}, counting down. */
  abstract void evictUpTo(long now, long threshold, long[] left);

  @Override
  public String toString() {
    return name + " = " + limit;
  }
}

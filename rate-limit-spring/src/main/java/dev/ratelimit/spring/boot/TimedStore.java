package dev.ratelimit.spring.boot;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;
import dev.ratelimit.store.KeySpace;
import dev.ratelimit.store.RateLimitStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A remote store, timed: reports how long each call took, in nanoseconds, for
 * {@code ratelimit.store.latency}. It decides and counts nothing (decisions are counted at the
 * limiter, {@link DecisionCounts}); the in-memory store is never timed, since two clock reads per
 * decision would cost more than the decision, and its "latency" is the decision itself.
 */
final class TimedStore implements RateLimitStore {
  private final RateLimitStore inner;
  private final Latency latency;

  /** Where the time of each store call goes (the {@code ratelimit.store.latency} timers). */
  @FunctionalInterface
  interface Latency {
    void record(long nanos);
  }

  TimedStore(RateLimitStore inner, Latency latency) {
    this.inner = inner;
    this.latency = latency;
  }

  /** The store that is timed. */
  RateLimitStore inner() {
    return inner;
  }

  @Override
  public KeySpace bind(String name, Limit limit) {
    return new TimedSpace(inner.bind(name, limit));
  }

  /** The inner store's rebind (its carry-over rule), timed as the rest. */
  @Override
  public KeySpace rebind(KeySpace previous, Limit limit) {
    KeySpace own = previous instanceof TimedSpace timed ? timed.inner : previous;
    return new TimedSpace(inner.rebind(own, limit));
  }

  /** The inner store's sharing of one state across plans (its conversion), timed as the rest. */
  @Override
  public KeySpace share(KeySpace sibling, Limit limit) {
    KeySpace own = sibling instanceof TimedSpace timed ? timed.inner : sibling;
    return new TimedSpace(inner.share(own, limit));
  }

  /** The inner store hears of every replacement (the Redis store publishes it to the other nodes). */
  @Override
  public void replacing(String name, String plan, Limit limit) {
    inner.replacing(name, plan, limit);
  }

  @Override
  public List<Decision> limitAll(List<Charge> charges) {
    long start = System.nanoTime();
    List<Decision> decisions = inner.limitAll(unwrap(charges));
    latency.record(System.nanoTime() - start);
    return decisions;
  }

  @Override
  public CompletionStage<List<Decision>> limitAllAsync(List<Charge> charges) {
    long start = System.nanoTime();
    return inner.limitAllAsync(unwrap(charges)).thenApply(decisions -> {
      latency.record(System.nanoTime() - start);
      return decisions;
    });
  }

  /** The charges on the inner store's own spaces, which it may decide all at once. */
  private static List<Charge> unwrap(List<Charge> charges) {
    List<Charge> inner = new ArrayList<>(charges.size());
    for (Charge charge : charges) {
      KeySpace space = charge.space() instanceof TimedSpace timed ? timed.inner : charge.space();
      inner.add(new Charge(space, charge.key(), charge.count()));
    }
    return inner;
  }

  @Override
  public boolean canFail() {
    return inner.canFail();
  }

  @Override
  public void close() {
    inner.close();
  }

  @Override
  public String toString() {
    return inner.toString();
  }

  private final class TimedSpace implements KeySpace {
    private final KeySpace inner;

    TimedSpace(KeySpace inner) {
      this.inner = inner;
    }

    @Override
    public String name() {
      return inner.name();
    }

    @Override
    public Limit limit() {
      return inner.limit();
    }

    @Override
    public Decision apply(String key, Operation op, double count, long maxWaitMillis) {
      long start = System.nanoTime();
      Decision decision = inner.apply(key, op, count, maxWaitMillis);
      latency.record(System.nanoTime() - start);
      return decision;
    }

    @Override
    public CompletionStage<Decision> applyAsync(String key, Operation op, double count, long maxWaitMillis) {
      long start = System.nanoTime();
      return inner.applyAsync(key, op, count, maxWaitMillis).thenApply(decision -> {
        latency.record(System.nanoTime() - start);
        return decision;
      });
    }

    @Override
    public void reset(String key) {
      inner.reset(key);
    }

    @Override
    public Decision refund(String key, double count) {
      return inner.refund(key, count);
    }

    @Override
    public CompletionStage<Void> resetAsync(String key) {
      return inner.resetAsync(key);
    }

    @Override
    public CompletionStage<Decision> refundAsync(String key, double count) {
      return inner.refundAsync(key, count);
    }
  }
}

package dev.ratelimit.spring.boot;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.store.KeySpace;
import dev.ratelimit.store.Operation;
import dev.ratelimit.store.RateLimitStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;

/**
 * A store that counts the decisions it makes per limit and outcome, and reports how long each
 * call to the store took: what the metrics and the {@code ratelimits} endpoint show. Checks are
 * not counted; all-or-nothing calls still reach the store as one call.
 */
public final class CountingStore implements RateLimitStore {
  private final RateLimitStore inner;
  private final Map<String, Counts> counts = new ConcurrentHashMap<>();
  private volatile LongConsumer latency = nanos -> {};

  /** Admitted and denied decisions of one limit. */
  public static final class Counts {
    final LongAdder allowed = new LongAdder();
    final LongAdder denied = new LongAdder();

    public long allowed() {
      return allowed.sum();
    }

    public long denied() {
      return denied.sum();
    }

    void record(Operation op, Decision decision) {
      if (op != Operation.CHECK) {
        (decision.allowed() ? allowed : denied).increment();
      }
    }
  }

  public CountingStore(RateLimitStore inner) {
    this.inner = inner;
  }

  /** The store whose decisions are counted. */
  public RateLimitStore inner() {
    return inner;
  }

  /** Decisions per limit name, for the limits that decided anything yet. */
  public Map<String, Counts> counts() {
    return counts;
  }

  /** The counts of one limit (created empty). */
  public Counts counts(String limit) {
    return counts.computeIfAbsent(limit, name -> new Counts());
  }

  /** Where to report how long each store call took, in nanoseconds. */
  public void onLatency(LongConsumer latency) {
    this.latency = latency;
  }

  @Override
  public KeySpace bind(String name, Limit limit) {
    return new CountedSpace(inner.bind(name, limit), counts(name));
  }

  /** The inner store's rebind (its carry-over rule), counted under the same name. */
  @Override
  public KeySpace rebind(KeySpace previous, Limit limit) {
    KeySpace own = previous instanceof CountedSpace counted ? counted.inner : previous;
    return new CountedSpace(inner.rebind(own, limit), counts(previous.name()));
  }

  @Override
  public List<Decision> limitAll(List<Charge> charges) {
    long start = System.nanoTime();
    List<Decision> decisions = inner.limitAll(unwrap(charges));
    latency.accept(System.nanoTime() - start);
    for (int i = 0; i < charges.size(); i++) {
      ((CountedSpace) charges.get(i).space()).counts.record(Operation.LIMIT, decisions.get(i));
    }
    return decisions;
  }

  @Override
  public CompletionStage<List<Decision>> limitAllAsync(List<Charge> charges) {
    long start = System.nanoTime();
    return inner.limitAllAsync(unwrap(charges)).thenApply(decisions -> {
      latency.accept(System.nanoTime() - start);
      for (int i = 0; i < charges.size(); i++) {
        ((CountedSpace) charges.get(i).space()).counts.record(Operation.LIMIT, decisions.get(i));
      }
      return decisions;
    });
  }

  private static List<Charge> unwrap(List<Charge> charges) {
    List<Charge> inner = new ArrayList<>(charges.size());
    for (Charge charge : charges) {
      inner.add(new Charge(((CountedSpace) charge.space()).inner, charge.key(), charge.count()));
    }
    return inner;
  }

  @Override
  public void close() {
    inner.close();
  }

  @Override
  public String toString() {
    return inner.toString();
  }

  private final class CountedSpace implements KeySpace {
    private final KeySpace inner;
    private final Counts counts;

    CountedSpace(KeySpace inner, Counts counts) {
      this.inner = inner;
      this.counts = counts;
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
      latency.accept(System.nanoTime() - start);
      counts.record(op, decision);
      return decision;
    }

    @Override
    public CompletionStage<Decision> applyAsync(String key, Operation op, double count, long maxWaitMillis) {
      long start = System.nanoTime();
      return inner.applyAsync(key, op, count, maxWaitMillis).thenApply(decision -> {
        latency.accept(System.nanoTime() - start);
        counts.record(op, decision);
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

package dev.ratelimit.store;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;
import dev.ratelimit.algorithm.ObjectAlgorithm;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Keys of a sliding window, sliding log or quota: an immutable state per key, replaced by
 * compare-and-set on each consuming request.
 *
 * @param <S> the algorithm's state type
 */
final class ObjectKeySpace<S> extends InMemoryKeySpace {
  /** The state of a dropped key; look it up again. */
  private static final Object DEAD = new Object();

  private final ObjectAlgorithm<S> algorithm;
  private final Map<String, AtomicReference<Object>> cells = new ConcurrentHashMap<>();
  /** Where evicted keys' usage goes; made at the first eviction. */
  private volatile UsageSketch sketch;
  /** The store's hand in this space; used only under its lock. */
  private Iterator<Map.Entry<String, AtomicReference<Object>>> cursor;

  private ObjectKeySpace(InMemoryStore store, String name, Limit limit, ObjectAlgorithm<S> algorithm) {
    super(store, name, limit);
    this.algorithm = algorithm;
  }

  static <S> ObjectKeySpace<S> of(InMemoryStore store, String name, Limit limit, ObjectAlgorithm<S> algorithm) {
    return new ObjectKeySpace<>(store, name, limit, algorithm);
  }

  @SuppressWarnings("unchecked")
  private S state(Object value) {
    return (S) value;
  }

  @Override
  Decision applyAt(String key, Operation op, double count, long maxWait, long now) {
    for (;;) {
      AtomicReference<Object> cell = cells.get(key);
      Object current = cell == null ? startingState(key, now) : cell.get();
      if (current == DEAD) {
        cells.remove(key, cell);
        continue;
      }
      ObjectAlgorithm.Step<S> step = algorithm.step(state(current), op, count, now);
      if (step.state() == current) {
        return step.decision();
      }
      if (cell == null) {
        if (cells.putIfAbsent(key, new AtomicReference<>(step.state())) == null) {
          store().added();
          return step.decision();
        }
        continue;
      }
      if (cell.compareAndSet(current, step.state())) {
        return step.decision();
      }
    }
  }

  /**
   * The state of a key absent from the map: fresh ({@code null}), or, if keys were evicted, the
   * units the sketch charges it taken at {@code now}; taken whatever the level, as a key evicted
   * in debt (by takes) used more than the capacity.
   */
  private Object startingState(String key, long now) {
    UsageSketch evicted = sketch;
    double units = evicted == null ? 0 : evicted.units(key, now);
    return units > 0 ? algorithm.take(null, now, units) : null;
  }

  @Override
  Decision refundAt(String key, double count, long now) {
    for (;;) {
      AtomicReference<Object> cell = cells.get(key);
      Object current = cell == null ? null : cell.get();
      if (current == DEAD) {
        cells.remove(key, cell);
        continue;
      }
      if (cell == null) {
        // nothing to give back to a key not held; its state is what it would start from
        return algorithm.step(state(startingState(key, now)), Operation.CHECK, 0, now).decision();
      }
      S next = current == null ? null : algorithm.refund(state(current), now, count);
      if (cell.compareAndSet(current, next)) {
        return algorithm.step(next, Operation.CHECK, 0, now).decision();
      }
    }
  }

  @Override
  public void reset(String key) {
    AtomicReference<Object> cell = cells.get(key);
    while (cell != null) {
      Object current = cell.get();
      if (current != DEAD && cell.compareAndSet(current, DEAD)) {
        cells.remove(key, cell);
        store().removed();
        return;
      }
      if (current == DEAD) {
        cells.remove(key, cell);
        cell = cells.get(key);
      }
    }
  }

  @Override
  boolean visitNext(long now, EvictionCandidate best) {
    if (cursor == null) {
      cursor = cells.entrySet().iterator();
    }
    if (!cursor.hasNext()) {
      cursor = null;
      return false;
    }
    Map.Entry<String, AtomicReference<Object>> entry = cursor.next();
    Object current = entry.getValue().get();
    if (current == DEAD) {
      return true;
    }
    long untilFresh = algorithm.untilFresh(state(current), now);
    if (untilFresh == 0) {
      kill(entry.getKey(), entry.getValue(), current);
    } else if (best != null) {
      best.offer(this, entry.getKey(), entry.getValue(), untilFresh);
    }
    return true;
  }

  @Override
  boolean evict(String key, Object visited, long now) {
    @SuppressWarnings("unchecked")
    AtomicReference<Object> cell = (AtomicReference<Object>) visited;
    Object current = cell.get();
    if (current == DEAD) {
      return false;
    }
    S state = state(current);
    double used = algorithm.level(null, now) - algorithm.level(state, now);
    long untilFresh = algorithm.untilFresh(state, now);
    sketch().fold(key, used, untilFresh > Long.MAX_VALUE - Math.max(0, now) ? Long.MAX_VALUE : now + untilFresh);
    return kill(key, cell, current); // if updated meanwhile, kept: the sketch may over-count it later
  }

  private UsageSketch sketch() {
    UsageSketch current = sketch;
    if (current == null) {
      synchronized (this) {
        current = sketch;
        if (current == null) {
          current = new UsageSketch(store().maxKeys());
          sketch = current;
        }
      }
    }
    return current;
  }

  private boolean kill(String key, AtomicReference<Object> cell, Object expected) {
    if (expected != DEAD && cell.compareAndSet(expected, DEAD)) {
      cells.remove(key, cell);
      store().removed();
      return true;
    }
    return false;
  }

  @Override
  boolean holds(String key) {
    return cells.containsKey(key);
  }
}

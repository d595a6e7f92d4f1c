package dev.ratelimit.store;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.algorithm.ObjectAlgorithm;
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
      Object current = cell == null ? null : cell.get();
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

  @Override
  Decision refundAt(String key, double count, long now) {
    for (;;) {
      AtomicReference<Object> cell = cells.get(key);
      Object current = cell == null ? null : cell.get();
      if (current == DEAD) {
        cells.remove(key, cell);
        continue;
      }
      S next = current == null ? null : algorithm.refund(state(current), now, count);
      if (cell == null || cell.compareAndSet(current, next)) {
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

  private boolean kill(String key, AtomicReference<Object> cell, Object expected) {
    if (expected != DEAD && cell.compareAndSet(expected, DEAD)) {
      cells.remove(key, cell);
      store().removed();
      return true;
    }
    return false;
  }

  @Override
  void dropFresh(long now) {
    cells.forEach((key, cell) -> {
      Object current = cell.get();
      if (current != DEAD && algorithm.untilFresh(state(current), now) == 0) {
        kill(key, cell, current);
      }
    });
  }

  @Override
  int collectUntilFresh(long now, long[] into, int at) {
    int n = at;
    for (AtomicReference<Object> cell : cells.values()) {
      Object current = cell.get();
      if (current != DEAD && n < into.length) {
        into[n++] = algorithm.untilFresh(state(current), now);
      }
    }
    return n;
  }

  @Override
  void evictUpTo(long now, long threshold, long[] left) {
    for (Map.Entry<String, AtomicReference<Object>> entry : cells.entrySet()) {
      if (left[0] <= 0) {
        return;
      }
      Object current = entry.getValue().get();
      if (current != DEAD && algorithm.untilFresh(state(current), now) <= threshold
          && kill(entry.getKey(), entry.getValue(), current)) {
        left[0]--;
      }
    }
  }
}

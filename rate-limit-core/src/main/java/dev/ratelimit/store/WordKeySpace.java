package dev.ratelimit.store;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.algorithm.LimitKind;
import dev.ratelimit.algorithm.WordAlgorithm;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keys of a token bucket, GCRA or fixed window: one {@link Cell} of two longs per key, updated in
 * place with a compare-and-set on the state word, so a decision on a known key allocates nothing
 * but the {@link Decision}.
 *
 * <p>States are kept on a timeline of this space's own, {@code now − base − offset(key)}: the base
 * is the first time seen (aligned to the period for fixed windows), so the doubles stay small
 * and exact even at epoch times; the offset puts each key's fixed windows at its start or phase.
 */
final class WordKeySpace extends InMemoryKeySpace {
  private static final long UNSET = Long.MIN_VALUE;
  private static final VarHandle BASE;

  static {
    try {
      BASE = MethodHandles.lookup().findVarHandle(WordKeySpace.class, "base", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final WordAlgorithm algorithm;
  private final boolean usesStamp;
  private final LimitKind kind;
  private final Limit limit;
  private final boolean randomPhase;
  private final long period;
  private final long fixedOffset;
  private final Map<String, Cell> cells = new ConcurrentHashMap<>();
  /** Where evicted keys' states go; made at the first eviction. */
  private volatile WordSketch sketch;
  /** The store's hand in this space; used only under its lock. */
  private Iterator<Map.Entry<String, Cell>> cursor;
  @SuppressWarnings("unused") // through BASE
  private volatile long base = UNSET;

  WordKeySpace(InMemoryStore store, String name, Limit limit, WordAlgorithm algorithm) {
    super(store, name, limit);
    this.algorithm = algorithm;
    this.usesStamp = algorithm.usesStamp();
    this.kind = LimitKind.of(limit);
    this.limit = limit;
    this.randomPhase = kind.offsetPerKey(limit);
    this.period = kind.windowMillis(limit);
    this.fixedOffset = randomPhase ? 0 : kind.windowOffset(limit, "");
  }

  /**
   * One key's state: the algorithm's double (as raw bits) and the latest time stored. The stamp
   * is raised before the state is swapped and read after it, so a reader never sees a state
   * newer than its stamp; a stamp ahead of its state only reads time a little later, which real
   * time has already reached.
   */
  static final class Cell {
    /** A NaN no arithmetic produces: the key was dropped; look it up again. */
    static final long DEAD = 0x7ff4_dead_dead_0001L;
    private static final VarHandle WORD;
    private static final VarHandle STAMP;

    static {
      try {
        WORD = MethodHandles.lookup().findVarHandle(Cell.class, "word", long.class);
        STAMP = MethodHandles.lookup().findVarHandle(Cell.class, "stamp", long.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    volatile long word;
    volatile long stamp;

    Cell(long word, long stamp) {
      this.word = word;
      this.stamp = stamp;
    }

    boolean swap(long expected, long next) {
      return WORD.compareAndSet(this, expected, next);
    }

    void raiseStamp(long time) {
      long current;
      while ((current = stamp) < time && !STAMP.compareAndSet(this, current, time)) {
        Thread.onSpinWait();
      }
    }

    /** Marks the cell dead if it still holds {@code expected}; true if this call did. */
    boolean kill(long expected) {
      return expected != DEAD && WORD.compareAndSet(this, expected, DEAD);
    }
  }

  /** {@code now} on this space's timeline for {@code key}. */
  private long timeline(String key, long now) {
    long b = base;
    if (b == UNSET) {
      BASE.compareAndSet(this, UNSET, now - Math.floorMod(now, period));
      b = base;
    }
    long offset = randomPhase ? kind.windowOffset(limit, key) : fixedOffset;
    return now - b - offset;
  }

  @Override
  Decision applyAt(String key, Operation op, double count, long maxWait, long now) {
    long t = timeline(key, now);
    for (;;) {
      Cell cell = cells.get(key);
      if (cell == null) {
        Decision decision = applyToNewKey(key, op, count, maxWait, t);
        if (decision != null) {
          return decision;
        }
        continue;
      }
      long bits = cell.word;
      if (bits == Cell.DEAD) {
        cells.remove(key, cell);
        continue;
      }
      long stamp = cell.stamp;
      double state = Double.longBitsToDouble(bits);
      double next = algorithm.next(state, stamp, op, count, maxWait, t);
      if (Double.isNaN(next)) {
        return algorithm.decide(state, stamp, op, count, maxWait, t);
      }
      if (usesStamp && t > stamp) {
        cell.raiseStamp(t);
      }
      if (cell.swap(bits, Double.doubleToRawLongBits(next))) {
        return algorithm.admitted(next, usesStamp ? Math.max(stamp, t) : stamp, op, t);
      }
    }
  }

  /**
   * A request on a key with no cell: decided on a fresh state, and a cell added only if it
   * consumed. {@code null} if another thread added the key meanwhile: try again.
   */
  private Decision applyToNewKey(String key, Operation op, double count, long maxWait, long t) {
    double start = startingState(key);
    double next = algorithm.next(start, WordAlgorithm.NO_STAMP, op, count, maxWait, t);
    if (Double.isNaN(next)) {
      return algorithm.decide(start, WordAlgorithm.NO_STAMP, op, count, maxWait, t);
    }
    long stamp = usesStamp ? t : WordAlgorithm.NO_STAMP;
    if (cells.putIfAbsent(key, new Cell(Double.doubleToRawLongBits(next), stamp)) != null) {
      return null;
    }
    store().added();
    return algorithm.admitted(next, stamp, op, t);
  }

  /**
   * The state of a key absent from the map: fresh, or what the sketch holds for it if keys were
   * evicted. Read with no stamp, that is at the caller's time: a stamp only adds units.
   */
  private double startingState(String key) {
    WordSketch evicted = sketch;
    return evicted == null ? WordAlgorithm.FRESH : evicted.state(key);
  }

  @Override
  Decision refundAt(String key, double count, long now) {
    long t = timeline(key, now);
    for (;;) {
      Cell cell = cells.get(key);
      if (cell == null) {
        // nothing to give back to a key not held; its state is what it would start from
        return algorithm.decide(startingState(key), WordAlgorithm.NO_STAMP, Operation.CHECK, 0, 0, t);
      }
      long bits = cell.word;
      if (bits == Cell.DEAD) {
        cells.remove(key, cell);
        continue;
      }
      long stamp = cell.stamp;
      double next = algorithm.refund(Double.longBitsToDouble(bits), stamp, count, t);
      // the refunded state is read at max(t, stamp), as a consumption's: its time is stored too
      if (usesStamp && t > stamp) {
        cell.raiseStamp(t);
      }
      if (cell.swap(bits, Double.doubleToRawLongBits(next))) {
        return algorithm.decide(next, usesStamp ? Math.max(stamp, t) : stamp, Operation.CHECK, 0, 0, t);
      }
    }
  }

  @Override
  public void reset(String key) {
    Cell cell = cells.get(key);
    while (cell != null) {
      long bits = cell.word;
      if (cell.kill(bits)) {
        cells.remove(key, cell);
        store().removed();
        return;
      }
      if (bits == Cell.DEAD) {
        cells.remove(key, cell);
        cell = cells.get(key);
      }
    }
  }

  private long untilFresh(String key, Cell cell, long bits, long now) {
    return algorithm.untilFresh(Double.longBitsToDouble(bits), cell.stamp, timeline(key, now));
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
    Map.Entry<String, Cell> entry = cursor.next();
    Cell cell = entry.getValue();
    long bits = cell.word;
    if (bits == Cell.DEAD) {
      return true;
    }
    long untilFresh = untilFresh(entry.getKey(), cell, bits, now);
    if (untilFresh == 0) {
      if (cell.kill(bits)) {
        cells.remove(entry.getKey(), cell);
        store().removed();
      }
    } else if (best != null) {
      best.offer(this, entry.getKey(), cell, untilFresh);
    }
    return true;
  }

  @Override
  boolean evict(String key, Object visited, long now) {
    Cell cell = (Cell) visited;
    long bits = cell.word;
    if (bits == Cell.DEAD) {
      return false;
    }
    sketch().fold(key, Double.longBitsToDouble(bits));
    if (!cell.kill(bits)) {
      return false; // updated meanwhile, so kept: the sketch may over-count it later, never under
    }
    cells.remove(key, cell);
    store().removed();
    return true;
  }

  private WordSketch sketch() {
    WordSketch current = sketch;
    if (current == null) {
      synchronized (this) {
        current = sketch;
        if (current == null) {
          current = new WordSketch(store().maxKeys());
          sketch = current;
        }
      }
    }
    return current;
  }

  @Override
  boolean holds(String key) {
    return cells.containsKey(key);
  }
}

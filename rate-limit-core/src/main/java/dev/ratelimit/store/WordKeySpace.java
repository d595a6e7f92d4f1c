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
  /**
   * The space of the limit this one replaced, whose keys move here on first touch; or
   * {@code null}. Dropped when this space is replaced in turn: only one step back carries over.
   */
  private volatile WordKeySpace predecessor;
  /** The space that replaced this one: every call goes there, so no key is decided in both. */
  private volatile WordKeySpace successor;
  @SuppressWarnings("unused") // through BASE
  private volatile long base = UNSET;

  WordKeySpace(InMemoryStore store, String name, Limit limit, WordAlgorithm algorithm) {
    this(store, name, limit, algorithm, null);
  }

  /**
   * A space taking over from {@code predecessor} (a limit of the same kind replaced at runtime):
   * each key moves here when first touched, its used units kept, capped by the new capacity.
   */
  WordKeySpace(InMemoryStore store, String name, Limit limit, WordAlgorithm algorithm, WordKeySpace predecessor) {
    super(store, name, limit);
    this.predecessor = predecessor;
    this.algorithm = algorithm;
    this.usesStamp = algorithm.usesStamp();
    this.kind = LimitKind.of(limit);
    this.limit = limit;
    this.randomPhase = kind.offsetPerKey(limit);
    this.period = kind.windowMillis(limit);
    this.fixedOffset = randomPhase ? 0 : kind.windowOffset(limit, "");
    if (predecessor != null) {
      // last, once every field is set (the volatile write publishes them to forwarded calls), and
      // before the limiter publishes this space: no call decides on both
      predecessor.successor = this;
      WordKeySpace older = predecessor.predecessor;
      predecessor.predecessor = null;
      if (older != null) {
        store.retire(older, older.cells.size()); // its keys now start fresh: nothing reads them
      }
    }
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
      WordKeySpace taker = successor;
      if (taker != null) {
        return taker.applyAt(key, op, count, maxWait, now); // a call that read the old limit
      }
      Cell cell = cells.get(key);
      if (cell == null && (carryOver(key, now, t) || successor != null)) {
        continue; // moved in from the predecessor, or out to a successor since the check above
      }
      if (cell == null) {
        Decision decision = applyToNewKey(key, op, count, maxWait, now, t);
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
  private Decision applyToNewKey(String key, Operation op, double count, long maxWait, long now, long t) {
    double start = startingState(key, now, t);
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
   * evicted. Read with no stamp, that is at the caller's time: a stamp only adds units. While a
   * predecessor is kept, a key it evicted carries its sketched usage over too (the more used of
   * the two wins), so eviction never admits more across a replacement than keeping would have.
   */
  private double startingState(String key, long now, long t) {
    WordSketch evicted = sketch;
    double own = evicted == null ? WordAlgorithm.FRESH : evicted.state(key);
    WordKeySpace previous = predecessor;
    WordSketch previousSketch = previous == null ? null : previous.sketch;
    if (previousSketch == null) {
      return own;
    }
    double used = previous.algorithm.used(previousSketch.state(key), WordAlgorithm.NO_STAMP, previous.timeline(key, now));
    double carried = algorithm.carried(used, t);
    return algorithm.used(carried, WordAlgorithm.NO_STAMP, t) > algorithm.used(own, WordAlgorithm.NO_STAMP, t)
        ? carried
        : own;
  }

  /**
   * Moves the key's state from the predecessor, if it has one: its used units, capped by this
   * capacity. Both maps' bins are locked while it moves ({@code computeIfAbsent} here,
   * {@code computeIfPresent} there, always newer space first, so no cycle), so a key is never
   * seen absent from both while in transit: a successor taking it from this space waits for it to
   * land here, and a key never lands here once a successor exists.
   *
   * @return whether the key is here now (look the cell up again)
   */
  private boolean carryOver(String key, long now, long t) {
    WordKeySpace predecessor = this.predecessor;
    if (predecessor == null) {
      return false;
    }
    boolean[] moved = new boolean[1];
    Cell cell = cells.computeIfAbsent(key, k -> {
      if (successor != null) {
        return null; // replaced meanwhile: the key stays put for the successor to take
      }
      double used = predecessor.takeUsed(k, now);
      if (Double.isNaN(used)) {
        return null;
      }
      moved[0] = true;
      return new Cell(Double.doubleToRawLongBits(algorithm.carried(used, t)), usesStamp ? t : WordAlgorithm.NO_STAMP);
    });
    if (moved[0]) {
      store().added(); // outside computeIfAbsent: the hand it may move removes from this map
    }
    return cell != null;
  }

  /**
   * Removes the key's state and returns its units used at {@code now}; {@code NaN} when this
   * space holds none. Under the key's bin lock, so it waits for a key landing here from the
   * predecessor. One step back only, as a remote store knows only the previous limit's
   * fingerprint: a key untouched since an older limit starts fresh.
   */
  private double takeUsed(String key, long now) {
    double[] used = {Double.NaN};
    cells.computeIfPresent(key, (k, cell) -> {
      for (;;) {
        long bits = cell.word;
        if (bits == Cell.DEAD) {
          return null; // dropped by the hand or a reset: nothing to carry
        }
        if (cell.kill(bits)) {
          store().removed();
          used[0] = algorithm.used(Double.longBitsToDouble(bits), cell.stamp, timeline(k, now));
          return null;
        }
      }
    });
    return used[0];
  }

  @Override
  Decision refundAt(String key, double count, long now) {
    long t = timeline(key, now);
    for (;;) {
      WordKeySpace taker = successor;
      if (taker != null) {
        return taker.refundAt(key, count, now);
      }
      Cell cell = cells.get(key);
      if (cell == null && (carryOver(key, now, t) || successor != null)) {
        continue;
      }
      if (cell == null) {
        // nothing to give back to a key not held; its state is what it would start from
        return algorithm.decide(startingState(key, now, t), WordAlgorithm.NO_STAMP, Operation.CHECK, 0, 0, t);
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
    WordKeySpace taker = successor;
    if (taker != null) {
      taker.reset(key); // which forgets it here too
    } else {
      resetHere(key);
    }
  }

  /** Forgets the key in this space and in the one it replaced, without forwarding. */
  private void resetHere(String key) {
    WordKeySpace predecessor = this.predecessor;
    if (predecessor != null) {
      predecessor.resetHere(key);
    }
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

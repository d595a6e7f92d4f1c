package dev.ratelimit.store;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;
import dev.ratelimit.algorithm.LimitKind;
import dev.ratelimit.algorithm.WordAlgorithm;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * Keys of a token bucket, GCRA or fixed window: one {@link Cell} of two longs per key, updated in
 * place with a compare-and-set on the state word, so a decision on a known key allocates nothing
 * but the {@link Decision}.
 *
 * <p>States are kept on a timeline of this space's own, {@code now − base − offset(key)}: the base
 * is the first time seen (aligned to the period for fixed windows), so the doubles stay small
 * and exact even at epoch times; the offset puts each key's fixed windows at its start or phase.
 *
 * <p>Spaces whose keys carry over to one another (the plans of a limit, and the limits that
 * replaced them at runtime: one kind, no random phase) share one {@link Family}: one map, one
 * cell per key, each cell knowing the space that wrote it. A space deciding on a cell another one
 * wrote reads it with its used units kept, capped by its own capacity (docs/design.md §2.7); a
 * request that writes takes it over, under the map's lock for that key, so a key is never decided
 * on two states at once, nor seen absent while it moves.
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

  /**
   * The keys shared by spaces that carry over to one another, and the store's hand over them
   * (the family's first space is the one the store sweeps).
   */
  static final class Family {
    final Map<String, Cell> cells = new ConcurrentHashMap<>();
    /**
     * Members that have evicted keys: a key absent from the map may have left usage in their
     * sketches. An array read once per new key, so that a key never evicted costs no iterator.
     */
    volatile WordKeySpace[] sketched = {};
    /** The store's hand in this family; used only under its lock. */
    Iterator<Map.Entry<String, Cell>> cursor;
  }

  private final WordAlgorithm algorithm;
  private final boolean usesStamp;
  private final LimitKind kind;
  private final Limit limit;
  private final boolean randomPhase;
  private final long period;
  private final long fixedOffset;
  private final Family family;
  private final Map<String, Cell> cells;
  /** Where keys this space wrote go when evicted; made at the first eviction. */
  private volatile WordSketch sketch;
  /** The space that replaced this one: every call goes there (a call that read the old limit). */
  private volatile WordKeySpace successor;
  @SuppressWarnings("unused") // through BASE
  private volatile long base = UNSET;

  /** A space with keys of its own (a new family). */
  WordKeySpace(InMemoryStore store, String name, Limit limit, WordAlgorithm algorithm) {
    this(store, name, limit, algorithm, new Family());
  }

  /**
   * A space on the keys of {@code family} (another plan of the limit, or a limit replacing one of
   * them): each key it meets written by another member is taken over, its used units kept,
   * capped by this capacity.
   */
  WordKeySpace(InMemoryStore store, String name, Limit limit, WordAlgorithm algorithm, Family family) {
    super(store, name, limit);
    this.algorithm = algorithm;
    this.usesStamp = algorithm.usesStamp();
    this.kind = LimitKind.of(limit);
    this.limit = limit;
    this.randomPhase = kind.offsetPerKey(limit);
    this.period = kind.windowMillis(limit);
    this.fixedOffset = randomPhase ? 0 : kind.windowOffset(limit, "");
    this.family = family;
    this.cells = family.cells;
  }

  Family family() {
    return family;
  }

  /**
   * Makes {@code next} (of this family) take this space's place: calls that read this limit go
   * there from now on, so no decision is made by a replaced limit. Before the limiter publishes
   * {@code next}; every field of it is set (the volatile write publishes them).
   */
  void replacedBy(WordKeySpace next) {
    successor = next;
  }

  /**
   * One key's state: the algorithm's double (as raw bits) and the latest time stored. The stamp
   * is raised before the state is swapped and read after it, so a reader never sees a state
   * newer than its stamp; a stamp ahead of its state only reads time a little later, which real
   * time has already reached.
   *
   * <p>{@code meta} is the space whose algorithm and timeline the state is on (its owner; another
   * member takes the cell over), or a {@link Kept} decision of that owner's. The owner never
   * changes: every {@code Kept} written to a cell names the same one, so the cell stays at two
   * longs and a reference.
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
    /**
     * The owner, or a {@link Kept} of its. Written without ordering: a {@code Kept} is immutable
     * (final fields, safely seen by any thread), and a reader that misses the latest one only
     * decides again.
     */
    private Object meta;

    Cell(long word, long stamp, WordKeySpace owner) {
      this.word = word;
      this.stamp = stamp;
      this.meta = owner;
    }

    /** The space whose algorithm and timeline the state is on. */
    WordKeySpace owner() {
      Object m = meta;
      return m instanceof Kept kept ? kept.owner : (WordKeySpace) m;
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

  /**
   * A decision that wrote nothing (a denial, a check), with what it was decided on. The algorithm
   * is a pure function of these, so the same request on the same state and stamp in the same
   * millisecond gets the same decision: a hot key denied thousands of times a millisecond is
   * decided once per millisecond and state change, and the others share that decision (an
   * immutable record) without computing or allocating anything.
   */
  private record Kept(WordKeySpace owner, long bits, long stamp, long t, Operation op, double count, long maxWait,
      Decision decision) {
    boolean decides(long bits, long stamp, long t, Operation op, double count, long maxWait) {
      return this.bits == bits && this.t == t && this.stamp == stamp && this.count == count && this.op == op
          && this.maxWait == maxWait;
    }
  }

  /** {@code now} on this space's timeline for {@code key}. */
  private long timeline(String key, long now) {
    long b = base;
    if (b == UNSET) {
      b = firstBase(now);
    }
    long offset = randomPhase ? kind.windowOffset(limit, key) : fixedOffset;
    return now - b - offset;
  }

  /** The base, set by the first call to read it (aligned to the period, for fixed windows). */
  private long firstBase(long now) {
    BASE.compareAndSet(this, UNSET, now - Math.floorMod(now, period));
    return base;
  }

  /**
   * What {@link #admitAt} answers for an admission: a decision whose only meaningful field is
   * {@code allowed}, never handed to a caller. An admission is the one outcome whose decision
   * costs work of its own (the level after it, when the key is full again) and an allocation;
   * a denial is kept and shared ({@link Kept}), so it costs the same either way.
   */
  private static final Decision ADMITTED = new Decision(true, 0, 0, 0, 0);

  @Override
  Decision applyAt(String key, Operation op, double count, long maxWait, long now) {
    return decideAt(key, op, count, maxWait, now, false);
  }

  @Override
  boolean admitAt(String key, double count, long now) {
    return decideAt(key, Operation.LIMIT, count, 0, now, true).allowed();
  }

  /** @param answerOnly whether an admission may answer {@link #ADMITTED} instead of its decision */
  private Decision decideAt(String key, Operation op, double count, long maxWait, long now, boolean answerOnly) {
    long t = timeline(key, now);
    for (;;) {
      WordKeySpace taker = successor;
      if (taker != null) {
        return taker.decideAt(key, op, count, maxWait, now, answerOnly); // a call that read the old limit
      }
      Cell cell = cells.get(key);
      Decision decision = cell == null
          ? applyToNewKey(key, op, count, maxWait, now, t, answerOnly)
          : decideOn(cell, key, op, count, maxWait, now, t, answerOnly);
      if (decision != null) {
        return decision;
      }
    }
  }

  /**
   * The decision on the key's {@code cell}, retried on it after a lost compare-and-set (the key
   * need not be looked up again while the cell lives); {@code null} when the key must be looked
   * up again: the cell died (a reset, the hand, a take-over), another member's write is to be
   * taken over, or this limit was replaced.
   *
   * <p>Apart from {@link #decideAt}, and with the rarer steps ({@link #keep}, {@link #firstBase})
   * out of line, so that each stays under the JIT's bound for inlining a hot method (325 bytes of
   * bytecode; {@code decideAt} was 371): a known key's decision then compiles into its caller,
   * about 5 ns less per call on one thread.
   */
  private Decision decideOn(Cell cell, String key, Operation op, double count, long maxWait, long now, long t,
      boolean answerOnly) {
    for (int lost = 0;; lost++) {
      long bits = cell.word;
      if (bits == Cell.DEAD) {
        cells.remove(key, cell);
        return null;
      }
      Object meta = cell.meta;
      long stamp = cell.stamp;
      if (meta != this) {
        if (!(meta instanceof Kept kept) || kept.owner != this) { // another plan's, or the replaced limit's
          return applyToForeign(key, cell, bits, op, count, maxWait, now, t);
        }
        if (kept.decides(bits, stamp, t, op, count, maxWait)) {
          return kept.decision;
        }
      }
      double state = Double.longBitsToDouble(bits);
      double next = algorithm.next(state, stamp, op, count, maxWait, t);
      if (Double.isNaN(next)) {
        return keep(cell, state, bits, stamp, t, op, count, maxWait);
      }
      if (usesStamp && t > stamp) {
        cell.raiseStamp(t);
      }
      if (cell.swap(bits, Double.doubleToRawLongBits(next))) {
        return answerOnly ? ADMITTED : algorithm.admitted(next, usesStamp ? Math.max(stamp, t) : stamp, op, t);
      }
      if (successor != null) {
        return null;
      }
      if (lost == 0) {
        backOff();
      }
    }
  }

  /**
   * After a decision's first lost compare-and-set: the thread parks for the shortest time the
   * system gives, as Resilience4j's {@code AtomicRateLimiter} does. Without it, two threads
   * deciding on one key move its cache line between the cores on every decision and are together
   * slower than one thread alone (12 against 17 million admissions per second here); while the
   * loser sleeps, the winner decides at one thread's speed, and the two together at least as fast
   * as one. What it costs: the loser waits once, about 50-60 µs on Linux (the timer slack of a
   * 1 ns park), and only when another thread wrote the same key at that instant; its later losses
   * retry at once (lock-free; a decision waits again only if its cell dies meanwhile);
   * no lock is held; an interrupted thread does not wait (its interrupt stays set). It is no less
   * fair than a bare compare-and-set: the winner keeps its lead while the loser sleeps. Spinning
   * instead ({@link Thread#onSpinWait}, growing up to 16 to 1024 times) measures as often slower
   * as faster than no back-off.
   */
  private static void backOff() {
    LockSupport.parkNanos(1);
  }

  /** A decision that writes nothing, worked out and kept in the cell for the same request again. */
  private Decision keep(Cell cell, double state, long bits, long stamp, long t, Operation op, double count,
      long maxWait) {
    Decision decision = algorithm.decide(state, stamp, op, count, maxWait, t);
    cell.meta = new Kept(this, bits, stamp, t, op, count, maxWait, decision);
    return decision;
  }

  /**
   * A request on a key with no cell: decided on a fresh state, and a cell added only if it
   * consumed. {@code null} if another thread added the key meanwhile: try again.
   */
  private Decision applyToNewKey(String key, Operation op, double count, long maxWait, long now, long t,
      boolean answerOnly) {
    double start = startingState(key, now, t);
    double next = algorithm.next(start, WordAlgorithm.NO_STAMP, op, count, maxWait, t);
    if (Double.isNaN(next)) {
      return algorithm.decide(start, WordAlgorithm.NO_STAMP, op, count, maxWait, t);
    }
    long stamp = usesStamp ? t : WordAlgorithm.NO_STAMP;
    if (cells.putIfAbsent(key, new Cell(Double.doubleToRawLongBits(next), stamp, this)) != null) {
      return null;
    }
    store().added();
    return answerOnly ? ADMITTED : algorithm.admitted(next, stamp, op, t);
  }

  /**
   * The state of a key absent from the map: fresh, or what the sketches hold for it if keys were
   * evicted. Read with no stamp, that is at the caller's time: a stamp only adds units. A key
   * another member of the family wrote and evicted carries its sketched usage over too (the most
   * used wins), so eviction never admits more across plans or a replacement than keeping would.
   */
  private double startingState(String key, long now, long t) {
    WordSketch evicted = sketch;
    double start = evicted == null ? WordAlgorithm.FRESH : evicted.state(key);
    for (WordKeySpace other : family.sketched) { // empty unless keys were evicted
      if (other != this) {
        double used = other.algorithm.used(other.sketch.state(key), WordAlgorithm.NO_STAMP, other.timeline(key, now));
        double carried = algorithm.carried(used, t);
        if (algorithm.used(carried, WordAlgorithm.NO_STAMP, t) > algorithm.used(start, WordAlgorithm.NO_STAMP, t)) {
          start = carried;
        }
      }
    }
    return start;
  }

  /**
   * A request on a key another member of the family wrote ({@code bits} of {@code cell}): decided
   * on its state as this limit reads it (units used kept, capped by this capacity). A request that
   * writes takes the key over, its own change applied, in one step under the map's lock for the
   * key; one that writes nothing (a check, a denial) leaves it to its writer, as a check or a
   * denial changes nothing. {@code null} if the cell changed meanwhile: look again.
   */
  private Decision applyToForeign(String key, Cell cell, long bits, Operation op, double count, long maxWait, long now,
      long t) {
    double carried = carried(key, cell, bits, now, t);
    long stamp = usesStamp ? t : WordAlgorithm.NO_STAMP;
    double next = algorithm.next(carried, stamp, op, count, maxWait, t);
    if (Double.isNaN(next)) {
      return algorithm.decide(carried, stamp, op, count, maxWait, t);
    }
    Cell[] taken = new Cell[1];
    cells.computeIfPresent(key, (k, current) -> {
      if (current != cell || !cell.kill(bits)) {
        return current; // changed meanwhile
      }
      taken[0] = new Cell(Double.doubleToRawLongBits(next), stamp, this);
      return taken[0];
    });
    return taken[0] == null ? null : algorithm.admitted(next, stamp, op, t);
  }

  /** The state of {@code cell} (holding {@code bits}, another member's) as this limit reads it at {@code t}. */
  private double carried(String key, Cell cell, long bits, long now, long t) {
    WordKeySpace writer = cell.owner();
    double used = writer.algorithm.used(Double.longBitsToDouble(bits), cell.stamp, writer.timeline(key, now));
    return algorithm.carried(used, t);
  }

  /**
   * Takes over a key another member of the family wrote, for a refund (which always writes): its
   * units used at {@code now} stay used, capped by this capacity. Under the map's lock for the key ({@code computeIfPresent}),
   * so the old cell dies and the new one appears at once: a call deciding on the old cell fails
   * its compare-and-set and looks again, and no call finds the key absent meanwhile.
   */
  private void takeOver(String key, long now, long t) {
    cells.computeIfPresent(key, (k, cell) -> {
      if (cell.owner() == this) {
        return cell;
      }
      for (;;) {
        long bits = cell.word;
        if (bits == Cell.DEAD) {
          return null; // dropped by the hand or a reset, which counted it: the key is fresh
        }
        if (cell.kill(bits)) {
          return new Cell(Double.doubleToRawLongBits(carried(k, cell, bits, now, t)),
              usesStamp ? t : WordAlgorithm.NO_STAMP, this);
        }
      }
    });
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
      if (cell != null && cell.owner() != this) {
        takeOver(key, now, t);
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
      taker.reset(key);
      return;
    }
    // whoever wrote it: the family shares one state per key
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

  /** The family's keys, whoever wrote them: the store sweeps a family through its first space only. */
  @Override
  boolean visitNext(long now, EvictionCandidate best) {
    if (family.cursor == null) {
      family.cursor = cells.entrySet().iterator();
    }
    if (!family.cursor.hasNext()) {
      family.cursor = null;
      return false;
    }
    Map.Entry<String, Cell> entry = family.cursor.next();
    Cell cell = entry.getValue();
    long bits = cell.word;
    if (bits == Cell.DEAD) {
      return true;
    }
    WordKeySpace writer = cell.owner();
    long untilFresh = writer.untilFresh(entry.getKey(), cell, bits, now);
    if (untilFresh == 0) {
      if (cell.kill(bits)) {
        cells.remove(entry.getKey(), cell);
        store().removed();
      }
    } else if (best != null) {
      best.offer(writer, entry.getKey(), cell, untilFresh); // folded into the writer's sketch
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
          synchronized (family) {
            WordKeySpace[] before = family.sketched;
            WordKeySpace[] after = java.util.Arrays.copyOf(before, before.length + 1);
            after[before.length] = this;
            family.sketched = after;
          }
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

package dev.ratelimit.limiter;

import dev.ratelimit.Clock;
import dev.ratelimit.internal.SpaceSaving;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One named limit's heaviest keys over its recent windows (docs/design.md §10.2): the units each
 * key was admitted and refused, in {@link SpaceSaving} sketches of {@code size} keys, so memory
 * is bounded whatever keys come. A window's sketches start empty when it begins and are read
 * until the next one ends: a read covers the current window and the one before.
 *
 * <p>Threads record into stripes, each a lock and its two sketches (this window's and the one
 * before), chosen by thread: a thread takes its own stripe's lock when free, else the next free
 * one, and waits only when every stripe is busy. Nothing is dropped, so the sketch's bounds hold
 * for the merge: a key's counts are the sums over the sketches holding it, and its
 * {@code uncounted} adds its error where it is held and the sketch's smallest count where it is
 * not (0 for a sketch that holds every key it saw). Over all sketches that is at most
 * {@code W / size}, {@code W} the units recorded in the two windows.
 */
final class TopKeys {
  /** Twice the processors, to a power of two, at most 8: enough that threads rarely meet. */
  static final int STRIPES = Math.min(8, Integer.highestOneBit(2 * Runtime.getRuntime().availableProcessors() - 1) << 1);

  private final Clock clock;
  private final long windowMillis;
  private final Stripe[] stripes;

  TopKeys(Clock clock, int size, long windowMillis) {
    this(clock, size, windowMillis, STRIPES);
  }

  /** @param stripes a power of two */
  TopKeys(Clock clock, int size, long windowMillis, int stripes) {
    this.clock = clock;
    this.windowMillis = windowMillis;
    this.stripes = new Stripe[stripes];
    for (int i = 0; i < stripes; i++) {
      this.stripes[i] = new Stripe(size);
    }
  }

  /** A stripe: its lock, and the sketches of the window it last saw and of the one before. */
  private static final class Stripe {
    final ReentrantLock lock = new ReentrantLock();
    SpaceSaving current;
    SpaceSaving previous;
    long window = Long.MIN_VALUE;

    Stripe(int size) {
      current = new SpaceSaving(size);
      previous = new SpaceSaving(size);
    }

    /** Moves to {@code now}'s window; a clock that went back stays in the latest one. */
    void advance(long now) {
      if (now <= window) {
        return;
      }
      if (now == window + 1) {
        SpaceSaving emptied = previous;
        previous = current;
        current = emptied;
        current.clear();
      } else {
        current.clear();
        previous.clear();
      }
      window = now;
    }
  }

  /** Counts one decision's units for {@code key}: admitted, or refused. */
  void record(String key, double units, boolean admitted) {
    long window = window();
    int home = home();
    int mask = stripes.length - 1;
    for (int i = 0; i < stripes.length; i++) {
      Stripe stripe = stripes[(home + i) & mask];
      if (stripe.lock.tryLock()) {
        add(stripe, window, key, units, admitted);
        return;
      }
    }
    Stripe stripe = stripes[home & mask];
    stripe.lock.lock();
    add(stripe, window, key, units, admitted);
  }

  /** Adds under the stripe's lock, which the caller took, and releases it. */
  private static void add(Stripe stripe, long window, String key, double units, boolean admitted) {
    try {
      stripe.advance(window);
      stripe.current.add(key, units, !admitted);
    } finally {
      stripe.lock.unlock();
    }
  }

  /**
   * The {@code n} heaviest keys of the current window and the one before, by the most units
   * (admitted and refused) each may have had, heaviest first; ties by key.
   */
  List<NamedLimiter.TopKey> top(int n) {
    long window = window();
    List<SpaceSaving.Count> held = new ArrayList<>();
    List<Double> bounds = new ArrayList<>();
    List<Integer> ends = new ArrayList<>();
    for (Stripe stripe : stripes) {
      stripe.lock.lock();
      try {
        stripe.advance(window);
        for (SpaceSaving sketch : new SpaceSaving[] {stripe.current, stripe.previous}) {
          held.addAll(sketch.counts());
          bounds.add(sketch.absentBound());
          ends.add(held.size());
        }
      } finally {
        stripe.lock.unlock();
      }
    }
    double allBounds = bounds.stream().mapToDouble(Double::doubleValue).sum();
    Map<String, double[]> merged = new HashMap<>();
    int sketch = 0;
    for (int i = 0; i < held.size(); i++) {
      while (i >= ends.get(sketch)) {
        sketch++;
      }
      SpaceSaving.Count count = held.get(i);
      // absent from every sketch, a key may have had each one's bound; where held, its own error instead
      double[] sums = merged.computeIfAbsent(count.key(), k -> new double[] {0, 0, allBounds});
      sums[0] += count.admitted();
      sums[1] += count.denied();
      sums[2] += count.error() - bounds.get(sketch);
    }
    return merged.entrySet().stream()
        .map(e -> new NamedLimiter.TopKey(e.getKey(), e.getValue()[0], e.getValue()[1], Math.max(0, e.getValue()[2])))
        .sorted(Comparator.comparingDouble((NamedLimiter.TopKey top) -> top.units() + top.denied() + top.uncounted()).reversed()
            .thenComparing(NamedLimiter.TopKey::key))
        .limit(n)
        .toList();
  }

  /** Keys held now, over every stripe and window: at most {@code 2 × stripes × size}. */
  int keysHeld() {
    int held = 0;
    for (Stripe stripe : stripes) {
      stripe.lock.lock();
      try {
        held += stripe.current.size() + stripe.previous.size();
      } finally {
        stripe.lock.unlock();
      }
    }
    return held;
  }

  private long window() {
    return Math.floorDiv(clock.millis(), windowMillis);
  }

  /** The calling thread's own stripe: its id, mixed so that consecutive ids spread. */
  @SuppressWarnings("deprecation") // Thread.getId, deprecated from Java 19 for threadId(), which Java 17 lacks
  private static int home() {
    return (int) ((Thread.currentThread().getId() * 0x9E3779B97F4A7C15L) >>> 40);
  }
}

package dev.ratelimit.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The heaviest keys of a stream in bounded memory: the Space-Saving sketch (Metwally, Agrawal and
 * El Abbadi, 2005), weighted, the one heavy-hitters count of the project (the limiter's top keys,
 * the simulator's summary). It holds at most {@code capacity} keys. A key that arrives when it is
 * full takes the place of the key with the smallest count and inherits that count as its
 * {@code error}: the most weight it may have had before it was counted. With {@code W} the weight
 * added in all:
 *
 * <ul>
 *   <li>a key's counted weight ({@code admitted + denied}) is never above its true weight, and
 *       short of it by at most its {@code error};
 *   <li>every {@code error} is at most the smallest count, which is at most {@code W / capacity};
 *   <li>so every key whose true weight is above {@code W / capacity} is held.
 * </ul>
 *
 * <p>Until {@code capacity} distinct keys it counts exactly (every error 0). Each add is a hash
 * lookup and a move in a min-heap of the counts, no allocation once full. Not thread-safe: its
 * users lock around it.
 */
public final class SpaceSaving {
  private final int capacity;
  private final Map<String, Counter> index;
  /** A min-heap of the counters by {@link Counter#count}: the root is the one a new key replaces. */
  private Counter[] heap = new Counter[0];
  private int size;
  private double total;
  private long arrivals;
  private boolean evicted;

  /** @param capacity the most keys held, at least 1 */
  public SpaceSaving(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1 but was " + capacity);
    }
    this.capacity = capacity;
    this.index = new HashMap<>();
  }

  /**
   * One key's counts.
   *
   * @param admitted weight admitted since the key was last taken in
   * @param denied weight denied since then
   * @param error the most weight the key may have had before, not counted (0 while exact)
   * @param arrival when the key was taken in, as a sequence number: smaller came first
   */
  public record Count(String key, double admitted, double denied, double error, long arrival) {
    /** The weight counted: never above the key's true weight. */
    public double counted() {
      return admitted + denied;
    }

    /** The most the key may have had: never below its true weight. */
    public double upperBound() {
      return admitted + denied + error;
    }
  }

  private static final class Counter {
    String key;
    double admitted;
    double denied;
    double error;
    /** {@code admitted + denied + error}: what the heap orders by. */
    double count;
    long arrival;
    int slot;

    void takeIn(String key, double error, long arrival) {
      this.key = key;
      this.admitted = 0;
      this.denied = 0;
      this.error = error;
      this.count = error;
      this.arrival = arrival;
    }

    Count snapshot() {
      return new Count(key, admitted, denied, error, arrival);
    }
  }

  /**
   * Counts {@code weight} for {@code key}, as denied or admitted. A weight that is not above 0
   * (or not a number) counts nothing.
   */
  public void add(String key, double weight, boolean denied) {
    if (!(weight > 0) || weight == Double.POSITIVE_INFINITY) {
      return;
    }
    total += weight;
    Counter counter = index.get(key);
    boolean appended = false;
    if (counter == null) {
      if (size < capacity) {
        counter = new Counter();
        counter.takeIn(key, 0, arrivals++);
        if (size == heap.length) {
          heap = Arrays.copyOf(heap, Math.min(capacity, Math.max(8, size * 2)));
        }
        counter.slot = size;
        heap[size++] = counter;
        appended = true;
      } else {
        counter = heap[0];
        index.remove(counter.key);
        counter.takeIn(key, counter.count, arrivals++);
        evicted = true;
      }
      index.put(key, counter);
    }
    if (denied) {
      counter.denied += weight;
    } else {
      counter.admitted += weight;
    }
    counter.count += weight;
    if (appended) {
      siftUp(counter.slot);
    } else {
      siftDown(counter.slot); // its count only grew
    }
  }

  /** The key's counts, or {@code null} when it is not held. */
  public Count get(String key) {
    Counter counter = index.get(key);
    return counter == null ? null : counter.snapshot();
  }

  /** Every key held, in no order. */
  public List<Count> counts() {
    List<Count> counts = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      counts.add(heap[i].snapshot());
    }
    return counts;
  }

  /**
   * The most weight a key not held may have had: 0 while every key that came is held, then the
   * smallest count.
   */
  public double absentBound() {
    return evicted ? heap[0].count : 0;
  }

  /** The weight added in all. */
  public double total() {
    return total;
  }

  /** How many keys are held. */
  public int size() {
    return size;
  }

  public int capacity() {
    return capacity;
  }

  /** Whether every count is exact: no key was ever replaced. */
  public boolean exact() {
    return !evicted;
  }

  /** Forgets every key; its table and heap keep their size, for the next window. */
  public void clear() {
    index.clear();
    Arrays.fill(heap, 0, size, null);
    size = 0;
    total = 0;
    arrivals = 0;
    evicted = false;
  }

  private void siftUp(int slot) {
    Counter moving = heap[slot];
    while (slot > 0) {
      int parent = (slot - 1) >>> 1;
      if (heap[parent].count <= moving.count) {
        break;
      }
      place(heap[parent], slot);
      slot = parent;
    }
    place(moving, slot);
  }

  private void siftDown(int slot) {
    Counter moving = heap[slot];
    for (;;) {
      int child = 2 * slot + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size && heap[child + 1].count < heap[child].count) {
        child++;
      }
      if (moving.count <= heap[child].count) {
        break;
      }
      place(heap[child], slot);
      slot = child;
    }
    place(moving, slot);
  }

  private void place(Counter counter, int slot) {
    heap[slot] = counter;
    counter.slot = slot;
  }
}

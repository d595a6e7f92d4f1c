package dev.ratelimit.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What the evicted keys of one sliding window, sliding log or quota had used: per cell the most
 * units in use and the latest time at which a key folded there is fresh again, each kept as a
 * maximum. A key's cells so cover what it used until it would have been fresh; their smallest is
 * charged to the key when it returns, as units taken at that time (which leave no earlier than
 * the key's own would have). Levels of these kinds never fall while nothing is taken.
 */
final class UsageSketch {
  private static final VarHandle CELLS = MethodHandles.arrayElementVarHandle(long[].class);

  private final SketchRows rows;
  /** Units in use, as raw double bits: non-negative doubles order as their bits do. */
  private final long[] used;
  private final long[] freshAt;

  UsageSketch(int maxKeys) {
    this.rows = new SketchRows(maxKeys);
    this.used = new long[rows.cells()];
    this.freshAt = new long[rows.cells()];
  }

  /** Folds in an evicted key; must happen before the key leaves the map. */
  void fold(String key, double units, long freshAtMillis) {
    long usedBits = Double.doubleToRawLongBits(Math.max(0, units));
    long hash = rows.hash(key);
    for (int row = 0; row < SketchRows.ROWS; row++) {
      int cell = rows.cell(hash, row);
      raise(used, cell, usedBits);
      raise(freshAt, cell, freshAtMillis);
    }
  }

  private static void raise(long[] array, int cell, long value) {
    long current;
    while (value > (current = (long) CELLS.getVolatile(array, cell))
        && !CELLS.compareAndSet(array, cell, current, value)) {
      Thread.onSpinWait();
    }
  }

  /** Units a key absent from the map is charged at {@code now}: 0 if none of its cells is live. */
  double units(String key, long now) {
    long hash = rows.hash(key);
    double least = Double.POSITIVE_INFINITY;
    for (int row = 0; row < SketchRows.ROWS; row++) {
      int cell = rows.cell(hash, row);
      double units = (long) CELLS.getVolatile(freshAt, cell) > now
          ? Double.longBitsToDouble((long) CELLS.getVolatile(used, cell)) : 0;
      least = Math.min(least, units);
    }
    return least;
  }
}

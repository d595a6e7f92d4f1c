package dev.ratelimit.store;

import dev.ratelimit.algorithm.WordAlgorithm;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * What the evicted keys of one token bucket, GCRA or fixed window had used: a count-min sketch
 * that keeps the largest state per cell. A larger state means fewer units at every later time
 * for these three kinds (a later empty time, a later arrival time, more units taken in a window),
 * so the smallest of a key's cells is at least its own state when it was evicted: a returning key
 * can only start with fewer units than it had, never more (more only where other keys collide in
 * every row).
 */
final class WordSketch {
  private static final VarHandle CELLS = MethodHandles.arrayElementVarHandle(long[].class);
  private static final long FRESH_BITS = Double.doubleToRawLongBits(WordAlgorithm.FRESH);

  private final SketchRows rows;
  private final long[] cells;

  WordSketch(int maxKeys) {
    this.rows = new SketchRows(maxKeys);
    this.cells = new long[rows.cells()];
    Arrays.fill(cells, FRESH_BITS);
  }

  /** Folds in an evicted key's state; must happen before the key leaves the map. */
  void fold(String key, double state) {
    long hash = rows.hash(key);
    for (int row = 0; row < SketchRows.ROWS; row++) {
      int cell = rows.cell(hash, row);
      long bits;
      while (state > Double.longBitsToDouble(bits = (long) CELLS.getVolatile(cells, cell))
          && !CELLS.compareAndSet(cells, cell, bits, Double.doubleToRawLongBits(state))) {
        Thread.onSpinWait();
      }
    }
  }

  /** The state a key absent from the map starts from: {@link WordAlgorithm#FRESH} if never folded. */
  double state(String key) {
    long hash = rows.hash(key);
    double least = Double.POSITIVE_INFINITY;
    for (int row = 0; row < SketchRows.ROWS; row++) {
      least = Math.min(least, Double.longBitsToDouble((long) CELLS.getVolatile(cells, rows.cell(hash, row))));
    }
    return least;
  }
}

package dev.ratelimit.store;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The cells of a key in an eviction sketch: one per row, {@link #ROWS} rows of a power-of-two
 * width. The hash is seeded per sketch, so that nobody outside the process can pick keys that
 * share a victim's cells (String.hashCode collisions are easy to make; these are not).
 */
final class SketchRows {
  /** Rows per sketch: a key with no history of its own is charged only if all of them collide. */
  static final int ROWS = 4;
  private static final int MIN_WIDTH = 64;
  private static final int MAX_WIDTH = 1 << 16;

  private final long seed = ThreadLocalRandom.current().nextLong() | 1;
  private final int width;

  SketchRows(int maxKeys) {
    int wanted = Math.max(MIN_WIDTH, Math.min(MAX_WIDTH, maxKeys / 4));
    this.width = Integer.highestOneBit(wanted - 1) << 1;
  }

  /** Cells in all rows together. */
  int cells() {
    return ROWS * width;
  }

  /** A 64-bit hash of the key's chars (UTF-16 code units: distinct strings stay distinct). */
  long hash(String key) {
    long h = seed ^ key.length();
    for (int i = 0; i < key.length(); i++) {
      h = (h ^ key.charAt(i)) * 0x9e37_79b9_7f4a_7c15L;
      h ^= h >>> 29;
    }
    h ^= h >>> 32;
    h *= 0xd6e8_feb8_6659_fd93L;
    return h ^ h >>> 32;
  }

  /** The key's cell in {@code row}, from its {@link #hash} (two halves, as Kirsch and Mitzenmacher). */
  int cell(long hash, int row) {
    int low = (int) hash;
    int step = (int) (hash >>> 32) | 1;
    return row * width + ((low + row * step) & (width - 1));
  }
}

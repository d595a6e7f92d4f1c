package dev.ratelimit.algorithm;

import dev.ratelimit.FixedWindow;
import dev.ratelimit.Gcra;
import dev.ratelimit.Limit;
import dev.ratelimit.Quota;
import dev.ratelimit.SlidingLog;
import dev.ratelimit.SlidingWindow;
import dev.ratelimit.TokenBucket;

/** The algorithm of each kind of limit. */
public final class Algorithms {
  private Algorithms() {}

  /** The in-place algorithm for token bucket, GCRA and fixed window; {@code null} for the others. */
  public static WordAlgorithm word(Limit limit) {
    if (limit instanceof TokenBucket l) {
      return new TokenBucketAlgorithm(l.rate(), l.period().toMillis(), l.capacity(), l.maxReserved());
    }
    if (limit instanceof Gcra l) {
      return new GcraAlgorithm(l.rate(), l.period().toMillis(), l.capacity(), l.maxReserved());
    }
    if (limit instanceof FixedWindow l) {
      return new FixedWindowAlgorithm(l.rate(), l.period().toMillis(), l.capacity(), l.maxReserved());
    }
    return null;
  }

  /** The algorithm for the sliding kinds and quotas; {@code null} for the others. */
  public static ObjectAlgorithm<?> object(Limit limit) {
    if (limit instanceof SlidingWindow l) {
      return new SlidingWindowAlgorithm(l.rate(), l.period().toMillis(), l.buckets());
    }
    if (limit instanceof SlidingLog l) {
      return new SlidingLogAlgorithm(l.rate(), l.period().toMillis());
    }
    if (limit instanceof Quota l) {
      return new QuotaAlgorithm(l.rate(), l.cadence(), l.offset().getTotalSeconds() * 1000L);
    }
    return null;
  }

  /**
   * Where a key's fixed windows begin, modulo the period: the configured start, or with a random
   * phase a point derived from the key (32-bit FNV-1a of its UTF-8 bytes scaled to the period),
   * the same on every node and in every store.
   */
  public static long windowOffset(FixedWindow limit, String key) {
    long period = limit.period().toMillis();
    if (!limit.randomPhase()) {
      return Math.floorMod(limit.start().toEpochMilli(), period);
    }
    return (long) Math.floor((fnv1a(key) & 0xffffffffL) / 4294967296.0 * period);
  }

  /** 32-bit FNV-1a over the UTF-8 bytes of {@code text}, encoded on the fly: no allocation. */
  static int fnv1a(String text) {
    int hash = 0x811c9dc5;
    for (int i = 0; i < text.length(); i++) {
      int c = text.codePointAt(i);
      if (Character.isSupplementaryCodePoint(c)) {
        i++;
      } else if (Character.isSurrogate((char) c)) {
        c = '?'; // as String.getBytes(UTF_8) writes a lone surrogate
      }
      if (c < 0x80) {
        hash = (hash ^ c) * 0x01000193;
      } else if (c < 0x800) {
        hash = (hash ^ (0xc0 | c >> 6)) * 0x01000193;
        hash = (hash ^ (0x80 | c & 0x3f)) * 0x01000193;
      } else if (c < 0x10000) {
        hash = (hash ^ (0xe0 | c >> 12)) * 0x01000193;
        hash = (hash ^ (0x80 | c >> 6 & 0x3f)) * 0x01000193;
        hash = (hash ^ (0x80 | c & 0x3f)) * 0x01000193;
      } else {
        hash = (hash ^ (0xf0 | c >> 18)) * 0x01000193;
        hash = (hash ^ (0x80 | c >> 12 & 0x3f)) * 0x01000193;
        hash = (hash ^ (0x80 | c >> 6 & 0x3f)) * 0x01000193;
        hash = (hash ^ (0x80 | c & 0x3f)) * 0x01000193;
      }
    }
    return hash;
  }
}

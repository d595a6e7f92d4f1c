package dev.ratelimit.algorithm;

import dev.ratelimit.FixedWindow;
import dev.ratelimit.Limit;

/** Fixed window: each window entered adds the rate, up to the capacity. */
final class FixedWindowKind extends LimitKind {
  FixedWindowKind() {
    super("fixed-window");
  }

  @Override
  public boolean inPlace() {
    return true;
  }

  @Override
  public WordAlgorithm word(Limit limit) {
    FixedWindow l = (FixedWindow) limit;
    return new FixedWindowAlgorithm(l.rate(), l.period().toMillis(), l.capacity(), l.maxReserved());
  }

  @Override
  public Limit perShard(Limit limit, int n) {
    FixedWindow l = (FixedWindow) limit;
    return new FixedWindow(l.rate() / n, l.period(), l.capacity() / n, l.maxReserved() / n, 1, l.start(),
        l.randomPhase(), l.failure(), l.mode());
  }

  @Override
  public long windowMillis(Limit limit) {
    return ((FixedWindow) limit).period().toMillis();
  }

  @Override
  public boolean offsetPerKey(Limit limit) {
    return ((FixedWindow) limit).randomPhase();
  }

  /**
   * The configured start modulo the period, or with a random phase a point derived from the key
   * (32-bit FNV-1a of its UTF-8 bytes scaled to the period), the same on every node and in every
   * store.
   */
  @Override
  public long windowOffset(Limit limit, String key) {
    FixedWindow l = (FixedWindow) limit;
    long period = l.period().toMillis();
    if (!l.randomPhase()) {
      return Math.floorMod(l.start().toEpochMilli(), period);
    }
    return (long) Math.floor((fnv1a(key) & 0xffffffffL) / 4294967296.0 * period);
  }

  /** The offset goes per key when the phase is random: 0 here. */
  @Override
  public Object[] storeParameters(Limit limit) {
    FixedWindow l = (FixedWindow) limit;
    long offset = l.randomPhase() ? 0 : windowOffset(l, "");
    return new Object[] {l.rate(), l.period().toMillis(), l.capacity(), l.maxReserved(), offset};
  }

  @Override
  String alignment(Limit limit) {
    FixedWindow l = (FixedWindow) limit;
    return l.randomPhase() ? "random" : Long.toString(l.start().toEpochMilli());
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

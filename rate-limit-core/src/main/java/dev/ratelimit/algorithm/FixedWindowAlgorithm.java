package dev.ratelimit.algorithm;

/**
 * Fixed window, kept as one number {@code d}: in window {@code k} the level is
 * {@code min(capacity, k·rate − d)}, so entering a later window adds {@code rate} per window
 * passed, up to the capacity. Windows begin at multiples of the period on the store's timeline
 * (the store shifts it to the configured start or the key's phase). A call from an earlier window
 * than the stamp's stays in the stamp's window.
 */
final class FixedWindowAlgorithm extends WordAlgorithm {
  private final double rate;
  private final long periodMillis;

  FixedWindowAlgorithm(double rate, long periodMillis, double capacity, double maxReserved) {
    super(capacity, maxReserved);
    this.rate = rate;
    this.periodMillis = periodMillis;
  }

  private long window(long now, long stamp) {
    return Math.max(Math.floorDiv(now, periodMillis), Math.floorDiv(stamp, periodMillis));
  }

  private double levelIn(double d, long window) {
    return Math.min(capacity, window * rate - d);
  }

  @Override
  public double level(double d, long stamp, long now) {
    return levelIn(d, window(now, stamp));
  }

  @Override
  protected double withLevel(double d, long stamp, long now, double level) {
    return window(now, stamp) * rate - level;
  }

  @Override
  protected double estimateWait(double d, long stamp, long now, double level, double units) {
    long current = window(now, stamp);
    // no window past this one is within any wait; and the level never rises above the capacity:
    // a count no window can serve is answered "never" at once, not by a search without end
    long last = current + Rules.NEVER / periodMillis;
    double first = Math.ceil((units + d) / rate);
    if (!Rules.reaches(capacity, units, tolerance) || !(first < last)) {
      return Rules.NEVER;
    }
    // the first later window whose level reaches the units; exact on whole windows
    long target = Math.max(current + 1, (long) first);
    while (target > current + 1 && Rules.reaches(levelIn(d, target - 1), units, tolerance)) {
      target--;
    }
    while (!Rules.reaches(levelIn(d, target), units, tolerance)) {
      if (++target > last) {
        return Rules.NEVER;
      }
    }
    return (double) target * periodMillis - now;
  }

  @Override
  protected double slope() {
    return 0;
  }

  @Override
  public boolean usesStamp() {
    return true;
  }
}

package dev.ratelimit.algorithm;

/**
 * Token bucket, kept as one number: the time {@code e} at which the bucket was (or will be)
 * empty, so the level at {@code t} is {@code min(capacity, (t − e)/T)} with {@code T} the
 * milliseconds per unit. Time is read as {@code max(now, stamp)}: a clock going back neither
 * adds units nor loses any, and waits include the gap back to the stamp.
 */
final class TokenBucketAlgorithm extends WordAlgorithm {
  private final double millisPerUnit;

  TokenBucketAlgorithm(double rate, long periodMillis, double capacity, double maxReserved) {
    super(capacity, maxReserved);
    this.millisPerUnit = periodMillis / rate;
  }

  @Override
  public double level(double emptyAt, long stamp, long now) {
    long t = Math.max(now, stamp);
    return Math.min(capacity, (t - emptyAt) / millisPerUnit);
  }

  @Override
  protected double withLevel(double emptyAt, long stamp, long now, double level) {
    return Math.max(now, stamp) - level * millisPerUnit;
  }

  @Override
  protected double estimateWait(double emptyAt, long stamp, long now, double units) {
    long t = Math.max(now, stamp);
    return (t - now) + (units - level(emptyAt, stamp, now)) * millisPerUnit;
  }

  @Override
  public boolean usesStamp() {
    return true;
  }
}

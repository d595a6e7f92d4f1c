package dev.ratelimit.algorithm;

/**
 * Token bucket, kept as one number: the time {@code e} at which the bucket was (or will be)
 * empty, so the level at {@code t} is {@code min(capacity, (t − e)·r)} with {@code r} units per
 * millisecond. Time is read as {@code max(now, stamp)}: a clock going back neither adds units nor
 * loses any, and waits include the gap back to the stamp.
 */
final class TokenBucketAlgorithm extends WordAlgorithm {
  private final double unitsPerMilli;
  private final double millisPerUnit;

  TokenBucketAlgorithm(double rate, long periodMillis, double capacity, double maxReserved) {
    super(capacity, maxReserved);
    this.unitsPerMilli = rate / periodMillis;
    this.millisPerUnit = periodMillis / rate;
  }

  @Override
  public double level(double emptyAt, long stamp, long now) {
    double level = (Math.max(now, stamp) - emptyAt) * unitsPerMilli;
    return level < capacity ? level : capacity;
  }

  @Override
  protected double withLevel(double emptyAt, long stamp, long now, double level) {
    return Math.max(now, stamp) - level * millisPerUnit;
  }

  @Override
  protected double estimateWait(double emptyAt, long stamp, long now, double level, double units) {
    return Math.max(now, stamp) - now + (units - level) * millisPerUnit;
  }

  @Override
  protected double slope() {
    return unitsPerMilli;
  }

  @Override
  public boolean usesStamp() {
    return true;
  }
}

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

  /**
   * When the level {@code (max(now, stamp) − e)·r}, below {@code units} here and so not capped,
   * reaches them: at {@code e + units/r}, whatever the stamp. Read off the state, as GCRA's, and not
   * through the level: that takes the level's arithmetic off the chain of dependent operations
   * an admitting decision waits on (a quarter of a hot key's time, profiled). Like any estimate,
   * {@link Rules#exactCeil} takes it only where rounding can't be wrong.
   */
  /** Below capacity the bucket empties {@code count/r} later than it did, never later than now (level 0). */
  @Override
  protected double taken(double emptyAt, long stamp, long now, double level, double count) {
    if (level < capacity) {
      double next = emptyAt + count * millisPerUnit;
      double time = Math.max(now, stamp);
      return next < time ? next : time;
    }
    return super.taken(emptyAt, stamp, now, level, count);
  }

  @Override
  protected double estimateWait(double emptyAt, long stamp, long now, double level, double units) {
    return emptyAt + units * millisPerUnit - now;
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

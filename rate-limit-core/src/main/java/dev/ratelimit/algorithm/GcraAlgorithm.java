package dev.ratelimit.algorithm;

/**
 * GCRA: one theoretical arrival time {@code tat} per key. With {@code T} the emission interval
 * and {@code τ = capacity·T}, units at {@code now} are {@code capacity − (max(tat, now) − now)/T}.
 * It reads {@code now} as given, so a clock going back can only lose units until time catches up.
 */
final class GcraAlgorithm extends WordAlgorithm {
  private final double emissionInterval;
  private final double unitsPerMilli;

  GcraAlgorithm(double rate, long periodMillis, double capacity, double maxReserved) {
    super(capacity, maxReserved);
    this.emissionInterval = periodMillis / rate;
    this.unitsPerMilli = rate / periodMillis;
  }

  @Override
  public double level(double tat, long stamp, long now) {
    // capacity − (tatE − now)/T rather than (τ − (tatE − now))/T: exactly the capacity once tat ≤ now
    return tat > now ? capacity - (tat - now) * unitsPerMilli : capacity;
  }

  @Override
  protected double withLevel(double tat, long stamp, long now, double level) {
    return now + (capacity - level) * emissionInterval;
  }

  @Override
  protected double estimateWait(double tat, long stamp, long now, double level, double units) {
    return tat - now - (capacity - units) * emissionInterval;
  }

  @Override
  protected double slope() {
    return unitsPerMilli;
  }

  @Override
  public boolean usesStamp() {
    return false;
  }
}

package dev.ratelimit;

import java.time.Duration;

/** Argument checks shared by the limit records; messages name the setting and the bad value. */
final class Checks {
  private Checks() {}

  static double positive(String name, double value) {
    if (!(value > 0) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(name + " must be a finite number greater than 0 but was " + value);
    }
    return value;
  }

  static double notNegative(String name, double value) {
    if (!(value >= 0)) {
      throw new IllegalArgumentException(name + " must be 0 or more but was " + value);
    }
    return value;
  }

  static void mode(LimitMode mode) {
    java.util.Objects.requireNonNull(mode, "mode (LimitMode.ENFORCE or LimitMode.SHADOW)");
  }

  static int atLeastOne(String name, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be at least 1 but was " + value);
    }
    return value;
  }

  /** Limits count in whole milliseconds, the resolution of every store's clock. */
  static Duration period(Duration period) {
    if (period == null) {
      throw new NullPointerException("period");
    }
    if (period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException("period must be positive but was " + period);
    }
    if (period.getNano() % 1_000_000 != 0) {
      throw new IllegalArgumentException("period must be a whole number of milliseconds but was " + period);
    }
    try {
      period.toMillis();
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("period is too long: " + period, e);
    }
    return period;
  }

  /** Capacity / rate periods, rounded up to the millisecond. */
  static Duration refillTime(double capacity, double rate, Duration period) {
    return Duration.ofMillis((long) Math.ceil(capacity / rate * period.toMillis() - 1e-9));
  }

  static void capacityFitsShards(double capacity, int shards) {
    if (shards > 1 && capacity / shards <= 0) {
      throw new IllegalArgumentException("capacity " + capacity + " cannot be split into " + shards + " shards");
    }
  }
}

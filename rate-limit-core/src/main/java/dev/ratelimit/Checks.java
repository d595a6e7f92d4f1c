package dev.ratelimit;

import java.time.Duration;

/** Argument checks shared by the limit records; messages name the setting and the bad value. */
final class Checks {
  private Checks() {}

  /**
   * The range of a rate or capacity: beyond it the algorithms' arithmetic overflows or underflows
   * (an emission interval of period / rate, a capacity times it), and above 2^53 (about 9e15) a
   * double no longer even counts single units.
   */
  static final double MIN_UNITS = 1e-9;
  static final double MAX_UNITS = 1e15;

  static double positive(String name, double value) {
    if (!(value >= MIN_UNITS && value <= MAX_UNITS)) {
      throw new IllegalArgumentException(name + " must be a number from 1e-9 to 1e15 but was " + value);
    }
    return value;
  }

  /** 0 or more, and at most {@link #MAX_UNITS} unless unbounded (Infinity). */
  static double notNegative(String name, double value) {
    if (!(value >= 0) || value > MAX_UNITS && value != Double.POSITIVE_INFINITY) {
      throw new IllegalArgumentException(name + " must be 0 or more, and at most 1e15 unless unbounded (Infinity),"
          + " but was " + value);
    }
    return value;
  }

  /** A lease (docs/design.md §4.3.3): 0 (none), or units from {@link #MIN_UNITS} to the capacity, not sharded. */
  static void lease(double lease, double capacity, int shards) {
    if (lease != 0 && !(lease >= MIN_UNITS && lease <= capacity)) {
      throw new IllegalArgumentException("lease must be 0 (none) or a number from 1e-9 to the capacity " + capacity
          + " but was " + lease);
    }
    if (lease != 0 && shards > 1) { // both split a hot key; a sharded lease would be a lease per shard
      throw new IllegalStateException("lease and shards conflict; choose one");
    }
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
      period.toNanos(); // at most 292 years: it converts to milliseconds and to nanoseconds alike
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("period must be at most 292 years (the range of nanoseconds) but was "
          + period, e);
    }
    return period;
  }

  /**
   * The longest refill (capacity / rate periods) of a bucket (token bucket, GCRA): 2^53 ms, about
   * 285,000 years, within which a double holds its times to the exact millisecond.
   */
  static final double MAX_BUCKET_REFILL_MILLIS = 0x1p53;
  /**
   * The longest refill of a fixed window, 292 years (the range of nanoseconds, as the longest
   * period): its waits walk window by window, so the number of windows must stay small.
   */
  static final double MAX_WINDOW_REFILL_MILLIS = Long.MAX_VALUE / 1e6;

  /** Refuses a capacity that takes longer than {@code maxMillis} to refill: waits beyond it overflow. */
  static void refillFits(double capacity, double rate, Duration period, double maxMillis) {
    double millis = capacity / rate * period.toMillis();
    if (!(millis <= maxMillis)) {
      throw new IllegalArgumentException("capacity " + capacity + " takes " + capacity / rate + " periods of "
          + period + " to refill at rate " + rate + "; at most " + (maxMillis == MAX_BUCKET_REFILL_MILLIS
              ? "285,000 years (milliseconds exact in a double)" : "292 years (the range of nanoseconds)"));
    }
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

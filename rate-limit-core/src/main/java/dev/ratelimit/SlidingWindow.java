package dev.ratelimit;

import java.time.Duration;
import java.util.Optional;

/**
 * {@code rate} units per rolling {@code period}, counted in {@code buckets} sub-windows; the
 * sub-window sliding out counts with a weight that falls linearly, so there is no burst at
 * window boundaries. The capacity is the rate.
 *
 * @since 1.0
 */
public record SlidingWindow(double rate, Duration period, int buckets, FailurePolicy failure, LimitMode mode) implements Limit {

  public static final int DEFAULT_BUCKETS = 10;

  public SlidingWindow {
    Checks.mode(mode);
    Checks.positive("rate", rate);
    Checks.period(period);
    Checks.atLeastOne("buckets", buckets);
    if (period.toMillis() % buckets != 0) {
      // whole-millisecond sub-windows keep every store's arithmetic exact and identical
      throw new IllegalArgumentException("period " + period.toMillis() + "ms must divide into " + buckets
          + " sub-windows of whole milliseconds (buckets=" + buckets + ")");
    }
  }

  /** An enforced limit ({@code mode=enforce}). */
  public SlidingWindow(double rate, Duration period, int buckets, FailurePolicy failure) {
    this(rate, period, buckets, failure, LimitMode.ENFORCE);
  }

  @Override
  public String kind() {
    return "sliding-window";
  }

  @Override
  public double capacity() {
    return rate;
  }

  @Override
  public Optional<Duration> refillTime() {
    return Optional.of(period);
  }

  public SlidingWindow withBuckets(int buckets) {
    return new SlidingWindow(rate, period, buckets, failure, mode);
  }

  public SlidingWindow withFailure(FailurePolicy failure) {
    return new SlidingWindow(rate, period, buckets, failure, mode);
  }

  public SlidingWindow withMode(LimitMode mode) {
    return new SlidingWindow(rate, period, buckets, failure, mode);
  }

  @Override
  public String toString() {
    SpecWriter spec = new SpecWriter(kind()).rate(rate).period(period);
    if (buckets != DEFAULT_BUCKETS) {
      spec.param("buckets", Integer.toString(buckets));
    }
    return spec.failure(failure).mode(mode).toString();
  }
}

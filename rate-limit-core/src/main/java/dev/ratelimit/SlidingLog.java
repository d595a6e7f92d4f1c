package dev.ratelimit;

import java.time.Duration;
import java.util.Optional;

/**
 * Exactly {@code rate} units in any rolling {@code period}: every admitted request is logged
 * and stops counting {@code period} after its time. Exact, at a memory cost per request.
 *
 * @since 1.0
 */
public record SlidingLog(double rate, Duration period, FailurePolicy failure, LimitMode mode) implements Limit {

  public SlidingLog {
    Checks.mode(mode);
    Checks.positive("rate", rate);
    Checks.period(period);
  }

  /** An enforced limit ({@code mode=enforce}). */
  public SlidingLog(double rate, Duration period, FailurePolicy failure) {
    this(rate, period, failure, LimitMode.ENFORCE);
  }

  @Override
  public String kind() {
    return "sliding-log";
  }

  @Override
  public double capacity() {
    return rate;
  }

  @Override
  public Optional<Duration> refillTime() {
    return Optional.of(period);
  }

  public SlidingLog withFailure(FailurePolicy failure) {
    return new SlidingLog(rate, period, failure, mode);
  }

  public SlidingLog withMode(LimitMode mode) {
    return new SlidingLog(rate, period, failure, mode);
  }

  @Override
  public String toString() {
    return new SpecWriter(kind()).rate(rate).period(period).failure(failure).mode(mode).toString();
  }
}

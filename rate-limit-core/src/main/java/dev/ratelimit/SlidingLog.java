package dev.ratelimit;

import dev.ratelimit.algorithm.SpecWriter;
import java.time.Duration;
import java.util.Optional;

/**
 * Exactly {@code rate} units in any rolling {@code period}: every admitted request is logged
 * and stops counting {@code period} after its time. Exact, at a memory cost per request.
 */
public record SlidingLog(double rate, Duration period, FailurePolicy failure) implements Limit {

  public SlidingLog {
    Checks.positive("rate", rate);
    Checks.period(period);
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
    return new SlidingLog(rate, period, failure);
  }

  @Override
  public String toString() {
    return new SpecWriter(kind()).rate(rate).period(period).failure(failure).toString();
  }
}

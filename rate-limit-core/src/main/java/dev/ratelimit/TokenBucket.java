package dev.ratelimit;

import java.time.Duration;
import java.util.Optional;

/**
 * A bucket of {@code capacity} units that refills continuously at {@code rate} per
 * {@code period}: bursts up to the capacity, then a steady pace.
 *
 * @param maxReserved how deep {@code reserve} may go into debt ({@code Infinity}: unbounded)
 * @param shards sub-keys a hot key is split into (1: not sharded)
 * @param failure the policy while a remote store is down; {@code null}: the store's
 */
public record TokenBucket(double rate, Duration period, double capacity, double maxReserved, int shards,
    FailurePolicy failure, LimitMode mode) implements Limit {

  public TokenBucket {
    Checks.mode(mode);
    Checks.positive("rate", rate);
    Checks.period(period);
    Checks.positive("capacity", capacity);
    Checks.notNegative("maxReserved", maxReserved);
    Checks.atLeastOne("shards", shards);
    Checks.capacityFitsShards(capacity, shards);
    Checks.refillFits(capacity, rate, period, Checks.MAX_BUCKET_REFILL_MILLIS);
  }

  /** An enforced limit ({@code mode=enforce}). */
  public TokenBucket(double rate, Duration period, double capacity, double maxReserved, int shards, FailurePolicy failure) {
    this(rate, period, capacity, maxReserved, shards, failure, LimitMode.ENFORCE);
  }

  @Override
  public String kind() {
    return "token-bucket";
  }

  @Override
  public boolean reservable() {
    return true;
  }

  @Override
  public Optional<Duration> refillTime() {
    return Optional.of(Checks.refillTime(capacity, rate, period));
  }

  public TokenBucket withCapacity(double capacity) {
    return new TokenBucket(rate, period, capacity, maxReserved, shards, failure, mode);
  }

  public TokenBucket withMaxReserved(double maxReserved) {
    return new TokenBucket(rate, period, capacity, maxReserved, shards, failure, mode);
  }

  public TokenBucket withShards(int shards) {
    return new TokenBucket(rate, period, capacity, maxReserved, shards, failure, mode);
  }

  public TokenBucket withFailure(FailurePolicy failure) {
    return new TokenBucket(rate, period, capacity, maxReserved, shards, failure, mode);
  }

  public TokenBucket withMode(LimitMode mode) {
    return new TokenBucket(rate, period, capacity, maxReserved, shards, failure, mode);
  }

  /** The spec of this limit, e.g. {@code token-bucket rate=10 period=1m capacity=20}. */
  @Override
  public String toString() {
    return new SpecWriter(kind()).rate(rate).period(period).capacity(capacity, rate)
        .maxReserved(maxReserved).shards(shards).failure(failure).mode(mode).toString();
  }
}

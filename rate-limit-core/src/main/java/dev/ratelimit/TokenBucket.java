package dev.ratelimit;

import dev.ratelimit.internal.SpecText;
import java.time.Duration;
import java.util.Optional;

/**
 * A bucket of {@code capacity} units that refills continuously at {@code rate} per
 * {@code period}: bursts up to the capacity, then a steady pace.
 *
 * @param maxReserved how deep {@code reserve} may go into debt ({@code Infinity}: unbounded)
 * @param shards sub-keys a hot key is split into (1: not sharded)
 * @param failure the policy while a remote store is down; {@code null}: the store's
 * @param lease units a node of a remote store takes at once and admits from locally (0: none;
 *     docs/design.md §4.3.3); the in-memory store has nothing to lease and ignores it
 * @since 1.0
 */
public record TokenBucket(double rate, Duration period, double capacity, double maxReserved, int shards,
    FailurePolicy failure, LimitMode mode, double lease) implements Limit {

  public TokenBucket {
    Checks.mode(mode);
    Checks.positive("rate", rate);
    Checks.period(period);
    Checks.positive("capacity", capacity);
    Checks.notNegative("maxReserved", maxReserved);
    Checks.atLeastOne("shards", shards);
    Checks.capacityFitsShards(capacity, shards);
    Checks.refillFits(capacity, rate, period, Checks.MAX_BUCKET_REFILL_MILLIS);
    Checks.lease(lease, capacity, shards);
  }

  /** Without a lease. */
  public TokenBucket(double rate, Duration period, double capacity, double maxReserved, int shards, FailurePolicy failure,
      LimitMode mode) {
    this(rate, period, capacity, maxReserved, shards, failure, mode, 0);
  }

  /** An enforced limit ({@code mode=enforce}). */
  public TokenBucket(double rate, Duration period, double capacity, double maxReserved, int shards, FailurePolicy failure) {
    this(rate, period, capacity, maxReserved, shards, failure, LimitMode.ENFORCE, 0);
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
    return new TokenBucket(rate, period, capacity, maxReserved, shards, failure, mode, lease);
  }

  public TokenBucket withMaxReserved(double maxReserved) {
    return new TokenBucket(rate, period, capacity, maxReserved, shards, failure, mode, lease);
  }

  public TokenBucket withShards(int shards) {
    return new TokenBucket(rate, period, capacity, maxReserved, shards, failure, mode, lease);
  }

  public TokenBucket withFailure(FailurePolicy failure) {
    return new TokenBucket(rate, period, capacity, maxReserved, shards, failure, mode, lease);
  }

  public TokenBucket withMode(LimitMode mode) {
    return new TokenBucket(rate, period, capacity, maxReserved, shards, failure, mode, lease);
  }

  /** Units per lease on a remote store ({@code lease=50}); 0: none. */
  public TokenBucket withLease(double lease) {
    return new TokenBucket(rate, period, capacity, maxReserved, shards, failure, mode, lease);
  }

  /** The spec of this limit, e.g. {@code token-bucket rate=10 period=1m capacity=20}. */
  @Override
  public String toString() {
    SpecWriter spec = new SpecWriter(kind()).rate(rate).period(period).capacity(capacity, rate)
        .maxReserved(maxReserved).shards(shards).failure(failure).mode(mode);
    return (lease == 0 ? spec : spec.param("lease", SpecText.number(lease))).toString();
  }
}

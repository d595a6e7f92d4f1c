package dev.ratelimit;

import dev.ratelimit.internal.SpecText;
import java.time.Duration;
import java.util.Optional;

/**
 * The generic cell rate algorithm: the same admissions as a {@link TokenBucket} while time moves
 * forward, kept as one number per key (the theoretical arrival time).
 *
 * @param maxReserved how deep {@code reserve} may go into debt ({@code Infinity}: unbounded)
 * @param shards sub-keys a hot key is split into (1: not sharded)
 * @param failure the policy while a remote store is down; {@code null}: the store's
 * @param lease units a node of a remote store takes at once and admits from locally (0: none;
 *     docs/design.md §4.3.3); the in-memory store has nothing to lease and ignores it
 * @since 1.0
 */
public record Gcra(double rate, Duration period, double capacity, double maxReserved, int shards,
    FailurePolicy failure, LimitMode mode, double lease) implements Limit {

  public Gcra {
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
  public Gcra(double rate, Duration period, double capacity, double maxReserved, int shards, FailurePolicy failure,
      LimitMode mode) {
    this(rate, period, capacity, maxReserved, shards, failure, mode, 0);
  }

  /** An enforced limit ({@code mode=enforce}). */
  public Gcra(double rate, Duration period, double capacity, double maxReserved, int shards, FailurePolicy failure) {
    this(rate, period, capacity, maxReserved, shards, failure, LimitMode.ENFORCE, 0);
  }

  @Override
  public String kind() {
    return "gcra";
  }

  @Override
  public boolean reservable() {
    return true;
  }

  @Override
  public Optional<Duration> refillTime() {
    return Optional.of(Checks.refillTime(capacity, rate, period));
  }

  public Gcra withCapacity(double capacity) {
    return new Gcra(rate, period, capacity, maxReserved, shards, failure, mode, lease);
  }

  public Gcra withMaxReserved(double maxReserved) {
    return new Gcra(rate, period, capacity, maxReserved, shards, failure, mode, lease);
  }

  public Gcra withShards(int shards) {
    return new Gcra(rate, period, capacity, maxReserved, shards, failure, mode, lease);
  }

  public Gcra withFailure(FailurePolicy failure) {
    return new Gcra(rate, period, capacity, maxReserved, shards, failure, mode, lease);
  }

  public Gcra withMode(LimitMode mode) {
    return new Gcra(rate, period, capacity, maxReserved, shards, failure, mode, lease);
  }

  /** Units per lease on a remote store ({@code lease=50}); 0: none. */
  public Gcra withLease(double lease) {
    return new Gcra(rate, period, capacity, maxReserved, shards, failure, mode, lease);
  }

  @Override
  public String toString() {
    SpecWriter spec = new SpecWriter(kind()).rate(rate).period(period).capacity(capacity, rate)
        .maxReserved(maxReserved).shards(shards).failure(failure).mode(mode);
    return (lease == 0 ? spec : spec.param("lease", SpecText.number(lease))).toString();
  }
}

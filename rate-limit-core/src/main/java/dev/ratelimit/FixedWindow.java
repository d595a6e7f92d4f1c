package dev.ratelimit;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Windows of one {@code period} each, starting at {@code start + k·period} (epoch-aligned by
 * default), or at a phase of each key's own with {@code randomPhase}. Each window entered adds
 * {@code rate} units, up to {@code capacity}: with {@code capacity = rate}, the classic reset.
 *
 * @param start where windows are aligned; {@link #EPOCH} unless set
 * @param randomPhase gives each key its own phase instead of {@code start}
 * @param failure the policy while a remote store is down; {@code null}: the store's
 * @since 1.0
 */
public record FixedWindow(double rate, Duration period, double capacity, double maxReserved, int shards,
    Instant start, boolean randomPhase, FailurePolicy failure, LimitMode mode) implements Limit {

  /** The default alignment: windows begin at whole multiples of the period since the epoch. */
  public static final Instant EPOCH = Instant.EPOCH;

  public FixedWindow {
    Checks.mode(mode);
    Checks.positive("rate", rate);
    Checks.period(period);
    Checks.positive("capacity", capacity);
    Checks.notNegative("maxReserved", maxReserved);
    Checks.atLeastOne("shards", shards);
    Checks.capacityFitsShards(capacity, shards);
    Checks.refillFits(capacity, rate, period, Checks.MAX_WINDOW_REFILL_MILLIS);
    Objects.requireNonNull(start, "start");
    try {
      start.toEpochMilli(); // the store's timeline is in epoch milliseconds
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("start must be within the range of epoch milliseconds"
          + " (about 292 million years either side of 1970) but was " + start, e);
    }
    if (start.getNano() % 1_000_000 != 0) {
      throw new IllegalArgumentException("start must be a whole millisecond but was " + start);
    }
    if (randomPhase && !start.equals(EPOCH)) {
      throw new IllegalStateException("start=" + start + " and phase=random conflict: choose one");
    }
  }

  /** An enforced limit ({@code mode=enforce}). */
  public FixedWindow(double rate, Duration period, double capacity, double maxReserved, int shards, Instant start, boolean randomPhase, FailurePolicy failure) {
    this(rate, period, capacity, maxReserved, shards, start, randomPhase, failure, LimitMode.ENFORCE);
  }

  @Override
  public String kind() {
    return "fixed-window";
  }

  @Override
  public boolean reservable() {
    return true;
  }

  /** Whole windows: each adds {@code rate}, up to the capacity. */
  @Override
  public Optional<Duration> refillTime() {
    return Optional.of(period.multipliedBy((long) Math.ceil(capacity / rate - 1e-9)));
  }

  public FixedWindow withCapacity(double capacity) {
    return new FixedWindow(rate, period, capacity, maxReserved, shards, start, randomPhase, failure, mode);
  }

  public FixedWindow withMaxReserved(double maxReserved) {
    return new FixedWindow(rate, period, capacity, maxReserved, shards, start, randomPhase, failure, mode);
  }

  public FixedWindow withShards(int shards) {
    return new FixedWindow(rate, period, capacity, maxReserved, shards, start, randomPhase, failure, mode);
  }

  public FixedWindow withStart(Instant start) {
    return new FixedWindow(rate, period, capacity, maxReserved, shards, start, randomPhase, failure, mode);
  }

  /** Each key gets its own window phase, so that windows don't all reset at once. */
  public FixedWindow withRandomPhase() {
    return new FixedWindow(rate, period, capacity, maxReserved, shards, EPOCH, true, failure, mode);
  }

  public FixedWindow withFailure(FailurePolicy failure) {
    return new FixedWindow(rate, period, capacity, maxReserved, shards, start, randomPhase, failure, mode);
  }

  public FixedWindow withMode(LimitMode mode) {
    return new FixedWindow(rate, period, capacity, maxReserved, shards, start, randomPhase, failure, mode);
  }

  @Override
  public String toString() {
    SpecWriter spec = new SpecWriter(kind()).rate(rate).period(period).capacity(capacity, rate)
        .maxReserved(maxReserved).shards(shards);
    if (randomPhase) {
      spec.param("phase", "random");
    } else if (!start.equals(EPOCH)) {
      spec.param("start", start.toString());
    }
    return spec.failure(failure).mode(mode).toString();
  }
}

package dev.ratelimit;

import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code rate} units per calendar day, ISO week (from Monday) or month at a fixed UTC offset;
 * nothing comes back before the period ends and nothing carries over.
 *
 * @since 1.0
 */
public record Quota(double rate, Cadence cadence, ZoneOffset offset, FailurePolicy failure, LimitMode mode) implements Limit {

  /** The calendar period of a quota. */
  public enum Cadence {
    DAY, WEEK, MONTH;

    public String spec() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public Quota {
    Checks.mode(mode);
    Checks.positive("rate", rate);
    Objects.requireNonNull(cadence, "cadence");
    Objects.requireNonNull(offset, "offset");
    if (offset.getTotalSeconds() % 60 != 0) {
      throw new IllegalArgumentException("offset must be whole minutes but was " + offset);
    }
  }

  /** An enforced limit ({@code mode=enforce}). */
  public Quota(double rate, Cadence cadence, ZoneOffset offset, FailurePolicy failure) {
    this(rate, cadence, offset, failure, LimitMode.ENFORCE);
  }

  @Override
  public String kind() {
    return "quota";
  }

  @Override
  public double capacity() {
    return rate;
  }

  /** None: everything comes back when the calendar period ends, and periods differ in length. */
  @Override
  public Optional<java.time.Duration> refillTime() {
    return Optional.empty();
  }

  public Quota withOffset(ZoneOffset offset) {
    return new Quota(rate, cadence, offset, failure, mode);
  }

  public Quota withFailure(FailurePolicy failure) {
    return new Quota(rate, cadence, offset, failure, mode);
  }

  public Quota withMode(LimitMode mode) {
    return new Quota(rate, cadence, offset, failure, mode);
  }

  @Override
  public String toString() {
    SpecWriter spec = new SpecWriter(kind()).rate(rate).param("cadence", cadence.spec());
    if (!offset.equals(ZoneOffset.UTC)) {
      spec.param("offset", offset.getId());
    }
    return spec.failure(failure).mode(mode).toString();
  }
}

package dev.ratelimit;

import dev.ratelimit.internal.SpecText;
import java.time.Duration;

/** Writes a limit back as its canonical spec, the text {@link SpecParser} reads. */
final class SpecWriter {
  private final StringBuilder text;

  SpecWriter(String kind) {
    text = new StringBuilder(kind);
  }

  SpecWriter param(String name, String value) {
    text.append(' ').append(name).append('=').append(value);
    return this;
  }

  SpecWriter rate(double rate) {
    return param("rate", number(rate));
  }

  SpecWriter period(Duration period) {
    return param("period", duration(period));
  }

  /** Written only when it differs from the rate, its default. */
  SpecWriter capacity(double capacity, double rate) {
    return capacity == rate ? this : param("capacity", number(capacity));
  }

  /** Written only when bounded (the default is unbounded). */
  SpecWriter maxReserved(double maxReserved) {
    return Double.isInfinite(maxReserved) ? this : param("maxReserved", number(maxReserved));
  }

  SpecWriter shards(int shards) {
    return shards == 1 ? this : param("shards", Integer.toString(shards));
  }

  SpecWriter failure(FailurePolicy failure) {
    return failure == null ? this : param("failure", failure.spec());
  }

  /** Written only for a shadow limit (the default is to enforce). */
  SpecWriter mode(LimitMode mode) {
    return mode == LimitMode.ENFORCE ? this : param("mode", mode.spec());
  }

  @Override
  public String toString() {
    return text.toString();
  }

  private static String number(double value) {
    return SpecText.number(value);
  }

  private static String duration(Duration duration) {
    return SpecText.duration(duration);
  }
}

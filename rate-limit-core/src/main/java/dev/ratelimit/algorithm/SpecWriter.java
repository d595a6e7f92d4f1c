package dev.ratelimit.algorithm;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.LimitMode;
import java.math.BigDecimal;
import java.time.Duration;

/** Writes a limit back as its canonical spec, the text {@link LimitSpecParser} reads. */
public final class SpecWriter {
  private final StringBuilder text;

  public SpecWriter(String kind) {
    text = new StringBuilder(kind);
  }

  public SpecWriter param(String name, String value) {
    text.append(' ').append(name).append('=').append(value);
    return this;
  }

  public SpecWriter rate(double rate) {
    return param("rate", number(rate));
  }

  public SpecWriter period(Duration period) {
    return param("period", duration(period));
  }

  /** Written only when it differs from the rate, its default. */
  public SpecWriter capacity(double capacity, double rate) {
    return capacity == rate ? this : param("capacity", number(capacity));
  }

  /** Written only when bounded (the default is unbounded). */
  public SpecWriter maxReserved(double maxReserved) {
    return Double.isInfinite(maxReserved) ? this : param("maxReserved", number(maxReserved));
  }

  public SpecWriter shards(int shards) {
    return shards == 1 ? this : param("shards", Integer.toString(shards));
  }

  public SpecWriter failure(FailurePolicy failure) {
    return failure == null ? this : param("failure", failure.spec());
  }

  /** Written only for a shadow limit (the default is to enforce). */
  public SpecWriter mode(LimitMode mode) {
    return mode == LimitMode.ENFORCE ? this : param("mode", mode.spec());
  }

  @Override
  public String toString() {
    return text.toString();
  }

  /** {@code 10}, {@code 2.5}: no trailing zeros, no exponent. */
  public static String number(double value) {
    return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
  }

  /** The largest unit that expresses the duration exactly: {@code 1d}, {@code 5m}, {@code 250ms}. */
  public static String duration(Duration duration) {
    long ms = duration.toMillis();
    if (ms % 86_400_000 == 0) {
      return ms / 86_400_000 + "d";
    }
    if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }
}

package dev.ratelimit;

import dev.ratelimit.internal.SpecText;
import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Typed access to the values of one spec; a bad value names its parameter and the spec. */
record SpecParams(String spec, Map<String, String> values) {
  private static final Pattern NUMBER = Pattern.compile("-?\\d+(?:\\.\\d+)?");
  private static final Pattern WHOLE = Pattern.compile("-?\\d+");
  private static final Pattern OFFSET = Pattern.compile("Z|[+-]\\d{2}:\\d{2}");

  /** See {@link SpecText#parseDuration}. */
  static Duration parseDuration(String text) {
    return SpecText.parseDuration(text);
  }


  double rate() {
    return positiveNumber("rate", values.get("rate"));
  }

  Duration period() {
    String value = values.get("period");
    Duration period;
    try {
      period = parseDuration(value);
    } catch (IllegalArgumentException e) {
      throw bad("period", value, e.getMessage());
    }
    if (period.isZero()) {
      throw bad("period", value, "a period must be positive");
    }
    return period;
  }

  double capacity() {
    return values.containsKey("capacity") ? positiveNumber("capacity", values.get("capacity")) : rate();
  }

  double maxReserved() {
    String value = values.get("maxReserved");
    if (value == null) {
      return Double.POSITIVE_INFINITY;
    }
    if (!NUMBER.matcher(value).matches() || value.startsWith("-")) {
      throw bad("maxReserved", value, "expected a number of units, 0 or more, such as 5");
    }
    double units = Double.parseDouble(value);
    if (Double.isInfinite(units)) { // so many digits that no double holds them: not "unbounded"
      throw bad("maxReserved", value, "at most 1e15; leave it out for no bound");
    }
    return units;
  }

  int shards() {
    return wholeNumber("shards", 1);
  }

  int buckets() {
    return wholeNumber("buckets", SlidingWindow.DEFAULT_BUCKETS);
  }

  Instant start() {
    String value = values.get("start");
    if (value == null) {
      return FixedWindow.EPOCH;
    }
    try {
      return OffsetDateTime.parse(value).toInstant();
    } catch (DateTimeParseException e) {
      throw bad("start", value, "expected an ISO-8601 instant such as 2026-01-01T00:00:00Z");
    }
  }

  boolean randomPhase() {
    String value = values.get("phase");
    if (value == null) {
      return false;
    }
    if (!value.equals("random")) {
      throw bad("phase", value, "the only phase is 'random' (or set start=INSTANT instead)");
    }
    if (values.containsKey("start")) {
      throw new InvalidLimitSpecException("start and phase=random conflict in " + quote(spec) + "; choose one",
          spec, "phase=" + value);
    }
    return true;
  }

  Quota.Cadence cadence() {
    String value = values.get("cadence");
    for (Quota.Cadence cadence : Quota.Cadence.values()) {
      if (cadence.spec().equals(value)) {
        return cadence;
      }
    }
    throw bad("cadence", value, "allowed: day, week, month");
  }

  ZoneOffset offset() {
    String value = values.get("offset");
    if (value == null) {
      return ZoneOffset.UTC;
    }
    try {
      if (OFFSET.matcher(value).matches()) {
        return ZoneOffset.of(value);
      }
    } catch (DateTimeException e) {
      // falls through to the message below
    }
    throw bad("offset", value, "expected Z or +HH:MM / -HH:MM, such as +02:00");
  }

  FailurePolicy failure() {
    String value = values.get("failure");
    if (value == null) {
      return null;
    }
    for (FailurePolicy policy : FailurePolicy.values()) {
      if (policy.spec().equals(value)) {
        return policy;
      }
    }
    throw bad("failure", value, "allowed: open, closed, local");
  }

  LimitMode mode() {
    String value = values.get("mode");
    if (value == null) {
      return LimitMode.ENFORCE;
    }
    for (LimitMode mode : LimitMode.values()) {
      if (mode.spec().equals(value)) {
        return mode;
      }
    }
    throw bad("mode", value, "allowed: enforce, shadow");
  }

  private double positiveNumber(String name, String value) {
    if (!NUMBER.matcher(value).matches()) {
      throw bad(name, value, "expected a number greater than 0, such as 10 or 2.5");
    }
    double number = Double.parseDouble(value);
    if (Double.isInfinite(number)) { // the range itself is the record's to check
      throw bad(name, value, "expected a number from 1e-9 to 1e15");
    }
    if (!(number > 0)) {
      throw bad(name, value, "expected a number greater than 0, such as 10 or 2.5");
    }
    return number;
  }

  private int wholeNumber(String name, int fallback) {
    String value = values.get(name);
    if (value == null) {
      return fallback;
    }
    if (!WHOLE.matcher(value).matches() || value.startsWith("-") || value.length() > 9
        || Integer.parseInt(value) < 1) {
      throw bad(name, value, "expected a whole number, 1 or more");
    }
    return Integer.parseInt(value);
  }

  /**
   * {@code lease} of a token bucket or GCRA: units greater than 0 (the record checks the range
   * against the capacity); absent: 0, no lease.
   */
  double lease() {
    String value = values.get("lease");
    if (value == null) {
      return 0;
    }
    if (!value.matches("\\d+(?:\\.\\d+)?") || !(Double.parseDouble(value) > 0)) {
      throw new InvalidLimitSpecException("bad value '" + value + "' for lease in " + quote(spec)
          + ": expected a number of units greater than 0, at most the capacity, such as 50 (leave it out for no lease)",
          spec, "lease=" + value);
    }
    return Double.parseDouble(value);
  }

  private InvalidLimitSpecException bad(String name, String value, String expected) {
    return new InvalidLimitSpecException("bad value '" + value + "' for " + name + " in " + quote(spec) + ": "
        + expected, spec, name + "=" + value);
  }

  static String quote(String spec) {
    return '"' + spec + '"';
  }
}

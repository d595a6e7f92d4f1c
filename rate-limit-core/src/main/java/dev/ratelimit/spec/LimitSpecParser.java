package dev.ratelimit.spec;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.FixedWindow;
import dev.ratelimit.Gcra;
import dev.ratelimit.InvalidLimitSpecException;
import dev.ratelimit.Limit;
import dev.ratelimit.Quota;
import dev.ratelimit.SlidingLog;
import dev.ratelimit.SlidingWindow;
import dev.ratelimit.TokenBucket;
import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Reads the one limit syntax used everywhere (DESIGN.md §5): {@code KIND name=value ...} or the
 * shorthand {@code RATE/PERIOD [name=value ...]} for a token bucket. Every error names the spec,
 * the bad token and what is allowed.
 */
public final class LimitSpecParser {
  private static final Pattern NUMBER = Pattern.compile("-?\\d+(?:\\.\\d+)?");
  private static final Pattern WHOLE = Pattern.compile("-?\\d+");
  private static final Pattern SIMPLE_DURATION = Pattern.compile("(-?\\d+(?:\\.\\d+)?)(ms|s|m|h|d)");
  private static final Pattern OFFSET = Pattern.compile("Z|[+-]\\d{2}:\\d{2}");
  private static final String DURATION_HELP = "use 250ms, 10s, 1.5s, 5m, 1h, 1d or ISO-8601 such as PT1M";

  private LimitSpecParser() {}

  /** The kinds, the parameters each accepts (in the order errors list them) and how to build one. */
  private enum Kind {
    TOKEN_BUCKET("token-bucket", List.of("rate", "period", "capacity", "maxReserved", "shards", "failure"),
        p -> new TokenBucket(p.rate(), p.period(), p.capacity(), p.maxReserved(), p.shards(), p.failure())),
    GCRA("gcra", List.of("rate", "period", "capacity", "maxReserved", "shards", "failure"),
        p -> new Gcra(p.rate(), p.period(), p.capacity(), p.maxReserved(), p.shards(), p.failure())),
    FIXED_WINDOW("fixed-window",
        List.of("rate", "period", "capacity", "maxReserved", "shards", "start", "phase", "failure"),
        p -> new FixedWindow(p.rate(), p.period(), p.capacity(), p.maxReserved(), p.shards(), p.start(),
            p.randomPhase(), p.failure())),
    SLIDING_WINDOW("sliding-window", List.of("rate", "period", "buckets", "failure"),
        p -> new SlidingWindow(p.rate(), p.period(), p.buckets(), p.failure())),
    SLIDING_LOG("sliding-log", List.of("rate", "period", "failure"),
        p -> new SlidingLog(p.rate(), p.period(), p.failure())),
    QUOTA("quota", List.of("rate", "cadence", "offset", "failure"),
        p -> new Quota(p.rate(), p.cadence(), p.offset(), p.failure()));

    final String spec;
    final List<String> params;
    final Function<Params, Limit> build;

    Kind(String spec, List<String> params, Function<Params, Limit> build) {
      this.spec = spec;
      this.params = params;
      this.build = build;
    }

    List<String> required() {
      return this == QUOTA ? List.of("rate", "cadence") : List.of("rate", "period");
    }

    static String allowed() {
      return Arrays.stream(values()).map(k -> k.spec).collect(Collectors.joining(", "));
    }
  }

  /**
   * Parses one spec.
   *
   * @throws InvalidLimitSpecException naming the spec, the bad token and what is allowed
   */
  public static Limit parse(String spec) {
    if (spec == null) {
      throw new InvalidLimitSpecException("limit spec is missing (null); expected e.g. \"token-bucket rate=10 period=1m\" or \"10/1m\"", null, null);
    }
    String text = spec.strip();
    if (text.isEmpty()) {
      throw new InvalidLimitSpecException(
          "empty limit spec; expected e.g. \"token-bucket rate=10 period=1m\" or \"10/1m\"", spec, spec);
    }
    String[] tokens = text.split("\\s+");
    Map<String, String> values = new LinkedHashMap<>();
    Kind kind = null;
    if (tokens[0].contains("/") && !tokens[0].contains("=")) {
      kind = Kind.TOKEN_BUCKET;
      String[] shorthand = tokens[0].split("/", -1);
      if (shorthand.length != 2 || shorthand[0].isEmpty() || shorthand[1].isEmpty()) {
        throw new InvalidLimitSpecException("bad shorthand '" + tokens[0] + "' in " + quote(spec)
            + "; expected RATE/PERIOD such as 10/1m", spec, tokens[0]);
      }
      values.put("rate", shorthand[0]);
      values.put("period", shorthand[1]);
    } else {
      for (Kind k : Kind.values()) {
        if (k.spec.equals(tokens[0])) {
          kind = k;
        }
      }
      if (kind == null) {
        throw new InvalidLimitSpecException("unknown limit kind '" + tokens[0] + "' in " + quote(spec)
            + "; allowed: " + Kind.allowed() + ", or the shorthand RATE/PERIOD such as 10/1m", spec, tokens[0]);
      }
    }
    for (int i = 1; i < tokens.length; i++) {
      String token = tokens[i];
      int eq = token.indexOf('=');
      if (eq <= 0) {
        throw new InvalidLimitSpecException("expected NAME=VALUE but found '" + token + "' in " + quote(spec)
            + "; allowed names: " + String.join(", ", kind.params), spec, token);
      }
      String name = token.substring(0, eq);
      String value = token.substring(eq + 1);
      if (!kind.params.contains(name)) {
        throw new InvalidLimitSpecException("unknown parameter '" + name + "' in " + quote(spec) + "; allowed: "
            + String.join(", ", kind.params), spec, token);
      }
      if (values.containsKey(name)) {
        throw new InvalidLimitSpecException("parameter '" + name + "' is given twice in " + quote(spec), spec, token);
      }
      if (value.isEmpty()) {
        throw new InvalidLimitSpecException("parameter '" + name + "' has no value in " + quote(spec), spec, token);
      }
      values.put(name, value);
    }
    for (String required : kind.required()) {
      if (!values.containsKey(required)) {
        throw new InvalidLimitSpecException("missing parameter '" + required + "' in " + quote(spec) + "; "
            + kind.spec + " needs " + String.join(" and ", kind.required()), spec, spec);
      }
    }
    Params params = new Params(spec, values);
    try {
      return kind.build.apply(params);
    } catch (InvalidLimitSpecException e) {
      throw e;
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new InvalidLimitSpecException("invalid limit spec " + quote(spec) + ": " + e.getMessage(), spec, spec);
    }
  }

  /**
   * Parses a duration: {@code 250ms}, {@code 10s}, {@code 1.5s}, {@code 5m}, {@code 1h},
   * {@code 1d} or ISO-8601 ({@code PT1M}). A bare number is an error: the unit is never guessed.
   *
   * @throws IllegalArgumentException naming the text and the accepted forms
   */
  public static Duration parseDuration(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("duration is empty; " + DURATION_HELP);
    }
    String value = text.strip();
    Matcher simple = SIMPLE_DURATION.matcher(value);
    Duration duration;
    if (simple.matches()) {
      BigDecimal amount = new BigDecimal(simple.group(1));
      long unitMillis = switch (simple.group(2)) {
        case "ms" -> 1;
        case "s" -> 1000;
        case "m" -> 60_000;
        case "h" -> 3_600_000;
        default -> 86_400_000;
      };
      BigDecimal millis = amount.multiply(BigDecimal.valueOf(unitMillis));
      if (millis.stripTrailingZeros().scale() > 0) {
        throw new IllegalArgumentException("duration '" + text + "' is not a whole number of milliseconds");
      }
      try {
        duration = Duration.ofMillis(millis.longValueExact());
      } catch (ArithmeticException e) {
        throw new IllegalArgumentException("duration '" + text + "' is too long");
      }
    } else if (value.toUpperCase(Locale.ROOT).startsWith("P") || value.toUpperCase(Locale.ROOT).startsWith("-P")) {
      try {
        duration = Duration.parse(value);
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException("duration '" + text + "' is not valid ISO-8601; " + DURATION_HELP);
      }
    } else if (NUMBER.matcher(value).matches()) {
      throw new IllegalArgumentException("duration '" + text + "' has no unit; " + DURATION_HELP);
    } else {
      throw new IllegalArgumentException("duration '" + text + "' is not valid; " + DURATION_HELP);
    }
    if (duration.isNegative()) {
      throw new IllegalArgumentException("duration '" + text + "' is negative; it must be positive");
    }
    return duration;
  }

  private static String quote(String spec) {
    return '"' + spec + '"';
  }

  /** Typed access to the values of one spec; a bad value names its parameter and the spec. */
  private record Params(String spec, Map<String, String> values) {

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

    private InvalidLimitSpecException bad(String name, String value, String expected) {
      return new InvalidLimitSpecException("bad value '" + value + "' for " + name + " in " + quote(spec) + ": "
          + expected, spec, name + "=" + value);
    }
  }
}

package dev.ratelimit.internal;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Numbers and durations as specs write them (docs/design.md §5): the one place that reads and
 * writes them, for the spec parser and writer and for the messages of every module.
 */
public final class SpecText {
  private static final Pattern NUMBER = Pattern.compile("-?\\d+(?:\\.\\d+)?");
  private static final Pattern SIMPLE_DURATION = Pattern.compile("(-?\\d+(?:\\.\\d+)?)(ms|s|m|h|d)");
  private static final String DURATION_HELP = "use 250ms, 10s, 1.5s, 5m, 1h, 1d or ISO-8601 such as PT1M";

  private SpecText() {}

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

  /** {@code 10}, {@code 2.5}: no trailing zeros, no exponent. */
  public static String number(double value) {
    return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
  }

  /** A number in a message: as {@link #number} when finite, else {@code Infinity} or {@code NaN}. */
  public static String message(double value) {
    return Double.isFinite(value) ? number(value) : Double.toString(value);
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

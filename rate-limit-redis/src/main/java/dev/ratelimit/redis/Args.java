package dev.ratelimit.redis;

import dev.ratelimit.Decision;
import java.util.List;

/**
 * What goes to the scripts and comes back. Numbers go as text that Lua's {@code tonumber} reads
 * back to the same double: whole numbers as integers, others as Java's shortest round-tripping
 * form ({@code 1.0E-4} reads as exactly the double Java holds). The scripts write {@code %.17g},
 * which round-trips the other way.
 */
final class Args {
  /** A wait with no bound ({@code Long.MAX_VALUE} in Java). */
  static final String NO_BOUND = "-1";

  private Args() {}

  static String number(double value) {
    if (value == Math.rint(value) && Math.abs(value) < 0x1p53) {
      return Long.toString((long) value);
    }
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      throw new IllegalArgumentException("not a finite number: " + value);
    }
    return Double.toString(value);
  }

  static String millis(long value) {
    return value == Long.MAX_VALUE ? NO_BOUND : Long.toString(value);
  }

  /**
   * One decision of a script's reply, which has one string per request: allowed (1 or 0),
   * remaining, retryAfter and resetAfter, separated by spaces.
   */
  static String reply(List<Object> reply, int index) {
    if (reply == null || reply.size() <= index || !(reply.get(index) instanceof String text)) {
      throw new IllegalStateException("a rate-limit script replied " + reply + "; expected a decision for request "
          + (index + 1));
    }
    return text;
  }

  /** A decision as a script writes it: {@code "1 0.30000000000000004 0 125"}. */
  static Decision decision(String text, double capacity) {
    int first = text.indexOf(' ');
    int second = text.indexOf(' ', first + 1);
    int third = text.indexOf(' ', second + 1);
    if (first != 1 || second < 0 || third < 0) {
      throw new IllegalStateException("a rate-limit script replied '" + text + "'; expected 4 numbers");
    }
    return new Decision(text.charAt(0) == '1', Double.parseDouble(text.substring(first + 1, second)), capacity,
        Long.parseLong(text, second + 1, third, 10), Long.parseLong(text, third + 1, text.length(), 10));
  }
}

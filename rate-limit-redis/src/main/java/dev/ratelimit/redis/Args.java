package dev.ratelimit.redis;

import dev.ratelimit.Decision;
import java.util.List;

/**
 * What goes to the scripts and comes back. Numbers go as text that Lua's {@code tonumber} reads
 * back to the same double: whole numbers as integers, others as Java's shortest round-tripping
 * form ({@code 1.0E-4} reads as exactly the double Java holds). Decisions come back as integers
 * (a double as its mantissa and exponent), which Redis replies without formatting them.
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

  /** Integers per decision in a script's reply. */
  static final int DECISION_FIELDS = 5;

  /**
   * One decision of a script's reply, which has {@value #DECISION_FIELDS} integers per request
   * (reply_into in state.lua): allowed (1 or 0), remaining as mantissa and exponent, retryAfter
   * and resetAfter.
   */
  static List<Object> reply(List<Object> reply, int index) {
    int from = DECISION_FIELDS * index;
    if (reply == null || reply.size() < from + DECISION_FIELDS
        || !reply.subList(from, from + DECISION_FIELDS).stream().allMatch(Long.class::isInstance)) {
      throw new IllegalStateException("a rate-limit script replied " + reply + "; expected a decision for request "
          + (index + 1));
    }
    return reply.subList(from, from + DECISION_FIELDS);
  }

  /** A decision as a script replies it: {@code [1, 5404319552844596, -1, 0, 125]} is 0.30000000000000004 left. */
  static Decision decision(List<Object> fields, double capacity) {
    if (fields.size() != DECISION_FIELDS || !fields.stream().allMatch(Long.class::isInstance)) {
      throw new IllegalStateException("a rate-limit script replied " + fields + "; expected "
          + DECISION_FIELDS + " integers");
    }
    return new Decision((Long) fields.get(0) == 1, remaining((Long) fields.get(1), (Long) fields.get(2)), capacity,
        (Long) fields.get(3), (Long) fields.get(4));
  }

  /** mantissa * 2^(exponent - 53), as Lua's math.frexp split it (exactly); mantissa 0 with exponent 1 is -0. */
  static double remaining(long mantissa, long exponent) {
    if (mantissa == 0) {
      return exponent == 1 ? -0.0 : 0.0;
    }
    if (Math.abs(mantissa) >= 1L << 53 || exponent < -1100 || exponent > 1100) {
      throw new IllegalStateException("a rate-limit script replied remaining units " + mantissa + " * 2^("
          + exponent + " - 53)");
    }
    return Math.scalb((double) mantissa, (int) exponent - 53);
  }
}

package dev.ratelimit.redis;

import dev.ratelimit.Decision;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * What goes to the scripts and comes back. Numbers go as text that Lua's {@code tonumber} reads
 * back to the same double: whole numbers as integers, others as Java's shortest round-tripping
 * form ({@code 1.0E-4} reads as exactly the double Java holds). Decisions come back packed in one
 * string (doubles as their bytes: exact), which Redis replies without converting anything.
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
   * The allowed byte of a request the script did not decide: its key holds a value of another
   * format ({@link ValueFormat}), whose version is in the remaining field.
   */
  static final int OTHER_FORMAT = 3;

  /** Bytes per decision in a script's reply. */
  static final int DECISION_BYTES = 25;

  /**
   * One decision of a script's reply, which is one string of {@value #DECISION_BYTES} bytes per
   * request (reply_bytes in state.lua): allowed (0, 1, 2 for a lease taken, or
   * {@link #OTHER_FORMAT}) as one byte, then remaining, retryAfter and resetAfter as
   * little-endian doubles.
   */
  static Answer reply(byte[] reply, int index) {
    int from = DECISION_BYTES * index;
    if (reply == null || reply.length < from + DECISION_BYTES) {
      throw new IllegalStateException("a rate-limit script replied " + (reply == null ? "no string" : reply.length + " bytes")
          + "; expected a decision for request " + (index + 1));
    }
    ByteBuffer fields = ByteBuffer.wrap(reply, from, DECISION_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    int allowed = fields.get();
    double remaining = fields.getDouble();
    double retryAfter = fields.getDouble();
    double resetAfter = fields.getDouble();
    if (allowed < 0 || allowed > OTHER_FORMAT || !Double.isFinite(remaining) || !isMillis(retryAfter) || !isMillis(resetAfter)) {
      throw new IllegalStateException("a rate-limit script replied allowed " + allowed + ", remaining " + remaining
          + ", retryAfter " + retryAfter + ", resetAfter " + resetAfter + " for request " + (index + 1));
    }
    return new Answer(allowed, remaining, (long) retryAfter, (long) resetAfter);
  }

  /** A whole number of milliseconds, as the scripts reply waits (Java's long saturates above 2^63). */
  private static boolean isMillis(double millis) {
    return millis >= 0 && millis <= 0x1p63 && millis == Math.rint(millis);
  }

  /**
   * One decision as a script replied it.
   *
   * @param allowed 0 denied, 1 admitted, 2 admitted with a lease taken as well,
   *     {@link #OTHER_FORMAT} not decided (remaining: the version the key holds)
   */
  record Answer(int allowed, double remaining, long retryAfterMillis, long resetAfterMillis) {
    /**
     * The decision on a key of limit {@code limit}.
     *
     * @throws dev.ratelimit.StoreUnavailableException when the key holds another value format
     */
    Decision decision(String limit, double capacity) {
      if (allowed == OTHER_FORMAT) {
        throw ValueFormat.refused(limit, remaining);
      }
      return new Decision(allowed != 0, remaining, capacity, retryAfterMillis, resetAfterMillis);
    }
  }
}

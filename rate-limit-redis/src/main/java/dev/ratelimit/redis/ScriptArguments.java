package dev.ratelimit.redis;

/**
 * The one description of what the scripts read from {@code ARGV}. Both drivers start with the
 * same preamble and describe a limit the same way; {@link #lua()} hands these positions to the
 * Lua side as constants at the top of every script, so neither side counts by itself.
 *
 * <pre>
 * preamble   now (epoch ms, or '' for Redis TIME), keep ('1': keys never expire)
 * limit      one argument, its words separated by spaces: kind, fingerprint, {@value #PARAMETERS}
 *            parameters (the last: a fixed window's offset), then the limit it replaced: its
 *            fingerprint ('-': none) and parameters (DESIGN.md §2.7), then whether it converts
 *            ('1': its values name their writer's parameters, and a value another limit of its
 *            kind wrote under the name is carried over; '0': neither)
 * main-batch preamble, one limit, then one request list per key (KEYS[k])
 * main-all   preamble, then per charge: a limit, the key's window offset ('-': the limit's) and
 *            its count
 * </pre>
 *
 * <p>A limit is one argument, the same text on every call, because that text is also the key
 * under which a Redis Functions library keeps the limit it built (state.lua read_limit): one
 * argument for Redis to hand to Lua and one table lookup, where fourteen arguments cost Redis
 * about 2.5 µs to convert and the library a {@code table.concat} to find the limit again.
 */
final class ScriptArguments {
  /** How many parameters every kind's Lua constructor takes (unused ones are {@code 0}). */
  static final int PARAMETERS = 5;

  /** now, keep. */
  private static final int PREAMBLE = 2;
  /** The previous limit's fingerprint when there is none. */
  static final String NO_PREVIOUS = "-";
  /** The window offset of a charge that has the limit's own. */
  static final String LIMIT_OFFSET = "-";
  /** A charge of an all-or-nothing call: a limit, the key's window offset, its count. */
  private static final int CHARGE = 3;
  /** Where main-batch's request lists start: after the preamble and the limit. */
  private static final int BATCH_HEAD = PREAMBLE + 1;

  private ScriptArguments() {}

  /**
   * A limit as the scripts read it.
   *
   * @param parameters {@value #PARAMETERS} of them, as the kind's Lua constructor takes them
   */
  static String limit(String kind, String fingerprint, String[] parameters, boolean converts) {
    String[] none = new String[PARAMETERS];
    java.util.Arrays.fill(none, "0");
    return limit(kind, fingerprint, parameters, NO_PREVIOUS, none, converts);
  }

  /**
   * A limit that replaced another of its kind at runtime: a key still written under the previous
   * one's fingerprint is carried over (its used units kept, capped by the new capacity).
   */
  static String limit(String kind, String fingerprint, String[] parameters, String previousFingerprint,
      String[] previousParameters, boolean converts) {
    if (parameters.length != PARAMETERS || previousParameters.length != PARAMETERS) {
      throw new IllegalArgumentException("a limit has " + PARAMETERS + " script parameters, not "
          + (parameters.length != PARAMETERS ? parameters.length : previousParameters.length));
    }
    return kind + ' ' + fingerprint + ' ' + String.join(" ", parameters) + ' ' + previousFingerprint + ' '
        + String.join(" ", previousParameters) + ' ' + (converts ? '1' : '0');
  }

  /** main-batch's arguments, with room for the request lists of {@code keys} keys. */
  static String[] batch(String now, boolean keep, String limit, int keys) {
    String[] args = new String[BATCH_HEAD + keys];
    preamble(args, now, keep);
    args[PREAMBLE] = limit;
    return args;
  }

  /** Where main-batch reads the requests on its {@code k}-th key (from 0). */
  static int requestsOf(int k) {
    return BATCH_HEAD + k;
  }

  /** main-all's arguments, with room for {@code charges} charges. */
  static String[] all(String now, boolean keep, int charges) {
    String[] args = new String[PREAMBLE + CHARGE * charges];
    preamble(args, now, keep);
    return args;
  }

  /**
   * Writes charge {@code i} (from 0) of an all-or-nothing call.
   *
   * @param offset the key's window offset, or {@code null} for the limit's
   */
  static void charge(String[] args, int i, String limit, String offset, String count) {
    int at = PREAMBLE + CHARGE * i;
    args[at] = limit;
    args[at + 1] = offset == null ? LIMIT_OFFSET : offset;
    args[at + 2] = count;
  }

  private static void preamble(String[] args, String now, boolean keep) {
    args[0] = now;
    args[1] = keep ? "1" : "0";
  }

  /** The layout as Lua constants (1-based, as {@code ARGV} is), put at the top of every script. */
  static String lua() {
    return "-- the ARGV layout, from dev.ratelimit.redis.ScriptArguments\n"
        + "local ARG_NOW, ARG_KEEP = 1, 2\n"
        + "local ARG_PARAMETERS = " + PARAMETERS + "\n"
        + "local ARG_BATCH_LIMIT = " + (PREAMBLE + 1) + "\n"
        + "local ARG_BATCH_REQUESTS = " + (BATCH_HEAD + 1) + "\n"
        + "local ARG_ALL_FIRST, ARG_ALL_STRIDE = " + (PREAMBLE + 1) + ", " + CHARGE + "\n";
  }
}

package dev.ratelimit.redis;

/**
 * The one description of what the scripts read from {@code ARGV}. Both drivers end with the
 * same clock argument and describe a limit the same way; {@link #lua()} hands these positions to
 * the Lua side as constants at the top of every script, so neither side counts by itself.
 *
 * <pre>
 * limit      one argument, its words separated by spaces: kind, fingerprint, {@value #PARAMETERS}
 *            parameters (the last: a fixed window's offset), then whether it converts ('1': its
 *            values name their writer's parameters, and a value another limit of its kind wrote
 *            under the name is carried over, docs/design.md §2.7; '0': neither)
 * main-batch one limit, then one request list per key (KEYS[k]), then the clock if any
 * main-all   per charge: a limit, the key's window offset ('-': the limit's) and its count, then
 *            the clock if any
 * clock      only when the caller gives the time or keeps every key: now (epoch ms, or '' for
 *            Redis TIME), a space, keep ('1': keys never expire); without it, Redis TIME and keys
 *            that expire
 * </pre>
 *
 * <p>The clock goes last and only when there is one, so that the common call carries no
 * argument that is the same on every call: each one costs Redis about 800 instructions to hand
 * to Lua (docs/benchmarks.md §4), and the script finds it after the key-indexed entries, whose
 * number {@code KEYS} gives.
 *
 * <p>A limit is one argument, the same text on every call, because that text is also the key
 * under which a Redis Functions library keeps the limit it built (state.lua read_limit): one
 * argument for Redis to hand to Lua and one table lookup, where fourteen arguments cost Redis
 * about 2.5 µs to convert and the library a {@code table.concat} to find the limit again.
 */
final class ScriptArguments {
  /** How many parameters every kind's Lua constructor takes (unused ones are {@code 0}). */
  static final int PARAMETERS = 5;

  /** The window offset of a charge that has the limit's own. */
  static final String LIMIT_OFFSET = "-";
  /** A charge of an all-or-nothing call: a limit, the key's window offset, its count. */
  private static final int CHARGE = 3;
  /** Where main-batch's request lists start: after the limit. */
  private static final int BATCH_HEAD = 1;

  private ScriptArguments() {}

  /**
   * A limit as the scripts read it.
   *
   * @param parameters {@value #PARAMETERS} of them, as the kind's Lua constructor takes them
   */
  static String limit(String kind, String fingerprint, String[] parameters, boolean converts) {
    if (parameters.length != PARAMETERS) {
      throw new IllegalArgumentException("a limit has " + PARAMETERS + " script parameters, not " + parameters.length);
    }
    return kind + ' ' + fingerprint + ' ' + String.join(" ", parameters) + ' ' + (converts ? '1' : '0');
  }

  /**
   * main-batch's arguments, with room for the request lists of {@code keys} keys.
   *
   * @param now the caller's time (epoch ms), or empty for Redis TIME
   * @param keep whether keys never expire
   */
  static String[] batch(String now, boolean keep, String limit, int keys) {
    String[] args = withClock(BATCH_HEAD + keys, now, keep);
    args[0] = limit;
    return args;
  }

  /** Where main-batch reads the requests on its {@code k}-th key (from 0). */
  static int requestsOf(int k) {
    return BATCH_HEAD + k;
  }

  /** main-all's arguments, with room for {@code charges} charges. */
  static String[] all(String now, boolean keep, int charges) {
    return withClock(CHARGE * charges, now, keep);
  }

  /**
   * Writes charge {@code i} (from 0) of an all-or-nothing call.
   *
   * @param offset the key's window offset, or {@code null} for the limit's
   */
  static void charge(String[] args, int i, String limit, String offset, String count) {
    int at = CHARGE * i;
    args[at] = limit;
    args[at + 1] = offset == null ? LIMIT_OFFSET : offset;
    args[at + 2] = count;
  }

  /** {@code size} arguments, and the clock after them when there is one. */
  private static String[] withClock(int size, String now, boolean keep) {
    if (now.isEmpty() && !keep) {
      return new String[size];
    }
    String[] args = new String[size + 1];
    args[size] = now + (keep ? " 1" : " 0");
    return args;
  }

  /** The layout as Lua constants (1-based, as {@code ARGV} is), put at the top of every script. */
  static String lua() {
    return "-- the ARGV layout, from dev.ratelimit.redis.ScriptArguments\n"
        + "local ARG_PARAMETERS = " + PARAMETERS + "\n"
        + "local ARG_BATCH_LIMIT = 1\n"
        + "local ARG_BATCH_REQUESTS = " + (BATCH_HEAD + 1) + "\n"
        + "local ARG_ALL_FIRST, ARG_ALL_STRIDE = 1, " + CHARGE + "\n";
  }
}

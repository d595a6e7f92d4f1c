package dev.ratelimit.redis;

import dev.ratelimit.StoreUnavailableException;

/**
 * The version of what the store keeps in Redis (docs/design.md §4.3 "Compatibility"): every value
 * of a limit's key starts with {@code <version>:} (then the limit's fingerprint and the state),
 * and the hash of runtime changes holds it in its field {@value #FIELD}. The scripts compare the
 * version together with the fingerprint, in the one comparison they make anyway; a key holding
 * another version is not decided (the script replies {@link Args#OTHER_FORMAT} for its requests
 * and writes nothing), and the request fails with {@link #refused}.
 */
final class ValueFormat {
  /** The one version this node reads and writes. */
  static final int VERSION = 1;
  /** The field of the runtime changes' hash that holds its version (no limit is named so: names are kebab-case). */
  static final String FIELD = "~format";

  private ValueFormat() {}

  /** The version as Lua constants, put at the top of every script beside the argument layout. */
  static String lua() {
    return "-- the value format, from dev.ratelimit.redis.ValueFormat\n"
        + "local FORMAT_VERSION, FORMAT_HEAD = " + VERSION + ", '" + VERSION + ":'\n";
  }

  /** The failure of a request whose key holds a value of {@code found}, another version than this node's. */
  static StoreUnavailableException refused(String limit, double found) {
    return new StoreUnavailableException("a Redis key of limit '" + limit + "' holds a value of format "
        + Args.number(found) + ", and this node reads format " + VERSION + " only: a node of another rate-limit "
        + "version wrote it; nodes sharing one Redis and key prefix must write one format (docs/design.md §4.3)",
        null);
  }
}

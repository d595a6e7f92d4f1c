package dev.ratelimit.redis;

import dev.ratelimit.internal.LongKeys;
import java.util.HexFormat;

/**
 * Redis keys of a store: {@code prefix:{name:key}}. The braces are a hash tag, so a key's slot in
 * a Redis Cluster depends on the limit's name and the key only. A {@code name:key} longer than
 * {@link #MAX_BYTES} UTF-8 bytes (ad-hoc limits have long names; keys may be long), or with a lone
 * surrogate (which Redis would receive as {@code ?}), is replaced by its lossless SHA-256, {@code prefix:{#hex}}, as the HTTP layer hashes long keys: Redis keys stay short,
 * and no plain {@code name:key} can start with {@code #} (limit names are kebab-case or start
 * with {@code ~}).
 */
final class KeyNames {
  /** The longest {@code name:key}, in UTF-8 bytes, kept as it is. */
  static final int MAX_BYTES = 256;

  private final String prefix;

  KeyNames(String prefix) {
    this.prefix = prefix;
  }

  String of(String name, String key) {
    String tag = name + ':' + key;
    if (!LongKeys.keptAsIs(tag, MAX_BYTES)) {
      tag = '#' + HexFormat.of().formatHex(LongKeys.sha256(tag));
    }
    return prefix + ":{" + tag + '}';
  }

  /**
   * The hash of limits changed at runtime ({@link LimitSync}): {@code prefix:limits}, free of
   * braces, so no key of a limit's state (always {@code prefix:{...}}) is ever named so.
   */
  String limits() {
    return prefix + ":limits";
  }
}

package dev.ratelimit.http.builder;

import java.util.Locale;

/**
 * What a rule does with a request that has no key (no such header, parameter or user): the
 * {@code missing-key} setting of every front end (docs/design.md §6.2), in {@code web.xml}, the
 * builders and {@code ratelimit.filter.missing-key}.
 *
 * @since 1.0
 */
public enum MissingKey {
  /** All such requests share the limit's global key (the default). */
  GLOBAL,
  /** The rule doesn't apply to the request; other rules still do. */
  SKIP,
  /** The request is refused: 400 with a problem+json body naming the missing key. */
  DENY;

  /** The spelling in {@code web.xml}: {@code global}, {@code skip}, {@code deny}. */
  public String spec() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The policy a setting spells ({@link #spec()}).
   *
   * @throws IllegalArgumentException naming the value and the allowed ones
   */
  public static MissingKey parse(String value) {
    for (MissingKey policy : values()) {
      if (policy.spec().equals(value)) {
        return policy;
      }
    }
    throw new IllegalArgumentException("unknown policy '" + value + "'; allowed: global, skip, deny");
  }
}

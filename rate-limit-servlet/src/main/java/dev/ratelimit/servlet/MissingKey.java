package dev.ratelimit.servlet;

/**
 * What a rule does with a request that has no key (no such header, parameter or user).
 *
 * @since 1.0
 */
public enum MissingKey {
  /** All such requests share the limit's global key (the default). */
  GLOBAL(dev.ratelimit.http.MissingKey.GLOBAL),
  /** The rule doesn't apply to the request; other rules still do. */
  SKIP(dev.ratelimit.http.MissingKey.SKIP),
  /** The request is refused: 400 with a problem+json body naming the missing key. */
  DENY(dev.ratelimit.http.MissingKey.DENY);

  /** The one definition, shared with the reactive front ends. */
  private final dev.ratelimit.http.MissingKey policy;

  MissingKey(dev.ratelimit.http.MissingKey policy) {
    this.policy = policy;
  }

  /** The spelling in {@code web.xml}: {@code global}, {@code skip}, {@code deny}. */
  public String spec() {
    return policy.spec();
  }

  dev.ratelimit.http.MissingKey policy() {
    return policy;
  }

  static MissingKey of(dev.ratelimit.http.MissingKey policy) {
    for (MissingKey value : values()) {
      if (value.policy == policy) {
        return value;
      }
    }
    throw new IllegalArgumentException("unknown policy " + policy);
  }

  static MissingKey parse(String value) {
    return of(dev.ratelimit.http.MissingKey.parse(value));
  }
}

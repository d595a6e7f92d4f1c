package dev.ratelimit.http;

/**
 * The five rate limit headers of docs/design.md §6, named once: a front end that keeps ready-made
 * fields (Jetty's pre-encoded ones) looks them up by header rather than by comparing names.
 */
public enum LimitHeader {
  LIMIT("X-RateLimit-Limit"),
  REMAINING("X-RateLimit-Remaining"),
  RESET("X-RateLimit-Reset"),
  POLICY("RateLimit-Policy"),
  STATE("RateLimit");

  private final String fieldName;

  LimitHeader(String fieldName) {
    this.fieldName = fieldName;
  }

  /** The name as it goes on the wire. */
  public String fieldName() {
    return fieldName;
  }
}

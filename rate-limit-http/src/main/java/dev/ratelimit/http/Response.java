package dev.ratelimit.http;

/**
 * The response as the rate limit headers and refusals write it; each front end adapts its own.
 * A refusal sets the status and the body last, after every header.
 */
public interface Response {

  boolean containsHeader(String name);

  /** Adds a value, keeping any earlier one. */
  void addHeader(String name, String value);

  /** Sets the only value. */
  void setHeader(String name, String value);

  /**
   * Adds a rate limit header whose value is a whole number, 0 or more, as decimal text. A front
   * end may add a field made once for a small number instead: the bytes must be the same.
   */
  default void addNumber(LimitHeader header, long value) {
    addHeader(header.fieldName(), NumberText.of(value));
  }

  /**
   * Adds a rate limit header. {@code repeated}: the value is the same on many responses (a rule's
   * {@code RateLimit-Policy}), so a front end may keep a field made once for it; the bytes must be
   * the same.
   */
  default void addHeader(LimitHeader header, String value, boolean repeated) {
    addHeader(header.fieldName(), value);
  }

  /**
   * Adds the {@code RateLimit} field of one limit, {@code "name";r=remaining;t=resetSeconds}
   * ({@link RateLimitHeaders#state(String, long, long)}; both numbers whole, 0 or more). A front
   * end may add a field made once for the same three values instead: the bytes must be the same.
   */
  default void addState(String name, long remaining, long resetSeconds) {
    addHeader(LimitHeader.STATE, RateLimitHeaders.state(name, remaining, resetSeconds), false);
  }

  /** Sets the status, the content type and the whole body of a refusal. */
  void refuse(int status, String contentType, byte[] body);
}

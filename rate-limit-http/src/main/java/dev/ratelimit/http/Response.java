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

  /** Sets the status, the content type and the whole body of a refusal. */
  void refuse(int status, String contentType, byte[] body);
}

/**
 * {@link dev.ratelimit.servlet.RateLimitFilter}: rate limits for any Jakarta Servlet 6
 * container, configured from {@code web.xml} or a builder.
 */
module dev.ratelimit.servlet {
  requires transitive dev.ratelimit.core;
  requires transitive jakarta.servlet;
  requires dev.ratelimit.http;

  exports dev.ratelimit.servlet;
}

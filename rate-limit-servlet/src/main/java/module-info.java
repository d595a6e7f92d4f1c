/**
 * {@link dev.ratelimit.servlet.RateLimitFilter}: rate limits for any Jakarta Servlet 6
 * container, configured from {@code web.xml} or a builder.
 */
module dev.ratelimit.servlet {
  requires transitive dev.ratelimit.core;
  requires transitive jakarta.servlet;
  requires transitive dev.ratelimit.http; // the builder's base, dev.ratelimit.http.builder

  exports dev.ratelimit.servlet;
}

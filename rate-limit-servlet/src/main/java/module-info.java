/**
 * {@link dev.ratelimit.servlet.RateLimitFilter}: rate limits for any Jakarta Servlet 6
 * container, configured from {@code web.xml} or a builder.
 */
module dev.ratelimit.servlet {
  requires transitive dev.ratelimit.core;
  requires transitive jakarta.servlet;
  requires transitive dev.ratelimit.http; // the builder's base, dev.ratelimit.http.builder
  // on Jetty 12 (ee10), the rate limit headers go into Jetty's own fields (JettyResponseView);
  // optional: without Jetty, the filter never loads that class
  requires static org.eclipse.jetty.ee10.servlet;
  requires static org.eclipse.jetty.server;
  requires static org.eclipse.jetty.http;

  exports dev.ratelimit.servlet;
}

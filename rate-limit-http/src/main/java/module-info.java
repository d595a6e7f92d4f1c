/**
 * The HTTP contract of rate limiting (docs/design.md §6), written once for every front end: the
 * rules and their matching, the keys, the client address behind trusted proxies, the rate
 * limit headers and the problem+json refusals. Not an API of its own: the front ends adapt their
 * requests and responses to {@link dev.ratelimit.http.Request} and
 * {@link dev.ratelimit.http.Response}, so the package is exported to the front ends only (the
 * servlet filter, the Spring integration, WebFlux and the gateway). Users see one type of it: the
 * builders' shared base, {@link dev.ratelimit.http.builder.FilterBuilder}.
 */
@SuppressWarnings("module") // the front ends it exports to are built after it
module dev.ratelimit.http {
  requires transitive dev.ratelimit.core;

  exports dev.ratelimit.http to
      dev.ratelimit.servlet, dev.ratelimit.spring, dev.ratelimit.webflux, dev.ratelimit.gateway;
  exports dev.ratelimit.http.builder;
}

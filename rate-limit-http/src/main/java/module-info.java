/**
 * The HTTP contract of rate limiting (docs/design.md §6), written once for every front end: the
 * rules and their matching, the keys, the client address behind trusted proxies, the rate
 * limit headers and the problem+json refusals. Not an API of its own: the front ends adapt their
 * requests and responses to {@link dev.ratelimit.http.Request} and
 * {@link dev.ratelimit.http.Response}. The Spring front ends (WebFlux, the gateway) run on the
 * class path, where this qualified export does not apply. Users see one type of it: the
 * builders' shared base, {@link dev.ratelimit.http.builder.FilterBuilder}.
 */
@SuppressWarnings("module") // the front end it exports to is built after it
module dev.ratelimit.http {
  requires transitive dev.ratelimit.core;

  exports dev.ratelimit.http to dev.ratelimit.servlet;
  exports dev.ratelimit.http.builder;
}

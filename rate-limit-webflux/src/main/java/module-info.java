/**
 * {@link dev.ratelimit.webflux.RateLimitWebFilter}: rate limits for Spring WebFlux, and its
 * auto-configuration ({@code dev.ratelimit.webflux.boot}) when Spring Boot and rate-limit-spring
 * are there.
 *
 * <p>The auto-configuration's package is open: Spring builds it and calls its package-private
 * {@code @Bean} methods. The filter's package is not: the filter is built by its builder, and its
 * SpEL keys are evaluated over public types.
 *
 * <p>Spring and Reactor have no module descriptors, only {@code Automatic-Module-Name}s, so the
 * lint warnings about automatic modules are off here.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.ratelimit.webflux {
  requires transitive dev.ratelimit.http;
  requires transitive spring.webflux;
  requires transitive spring.web;
  requires transitive reactor.core;
  requires spring.beans;
  requires spring.context;
  requires spring.core;
  requires spring.expression;
  requires org.apache.commons.logging;
  requires org.reactivestreams;

  requires static dev.ratelimit.spring;
  requires static spring.boot;
  requires static spring.boot.autoconfigure;

  exports dev.ratelimit.webflux;
  exports dev.ratelimit.webflux.boot;

  opens dev.ratelimit.webflux.boot;
}

/**
 * Rate limits for Spring: {@link dev.ratelimit.spring.RateLimited} methods and
 * {@link dev.ratelimit.spring.EnableRateLimiting}, and Spring Boot's auto-configuration of the
 * limiter, the store, the servlet filter, the meters and the actuator endpoint
 * ({@code dev.ratelimit.spring.boot}, docs/design.md §7).
 *
 * <p>Both packages are open: Spring builds their {@code @Configuration} classes and proxies,
 * calls package-private {@code @Bean} methods and constructors, binds
 * {@code RateLimitProperties}, invokes the endpoint's operations, evaluates SpEL over their
 * values and records AOT hints, from several of its modules (core, beans, context, Boot, SpEL,
 * Jackson), whose names differ between the Boot lines this module runs on.
 *
 * <p>What an application may not have is {@code requires static}: the servlet filter, Redis,
 * bucket4j, Boot, Actuator, Micrometer, Spring Security, Reactor, Spring Cloud. Spring and its
 * companions have no module descriptors, only {@code Automatic-Module-Name}s (Spring Cloud's jars
 * not even that), so the lint warnings about automatic modules are off here.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.ratelimit.spring {
  requires transitive dev.ratelimit.core;
  requires transitive spring.context;
  requires spring.aop;
  requires transitive spring.beans;
  requires spring.core;
  requires transitive spring.expression;
  requires transitive org.aspectj.weaver;
  requires org.apache.commons.logging;
  requires static org.jspecify;

  requires transitive dev.ratelimit.http; // the properties bind its MissingKey
  requires static dev.ratelimit.servlet;
  requires static dev.ratelimit.redis;
  requires static dev.ratelimit.bucket4j;
  requires static jakarta.servlet;
  requires static spring.web;
  requires static spring.webmvc;
  requires static spring.data.redis;
  requires static lettuce.core;
  requires static io.github.bucket4j.core;
  requires static reactor.core;
  requires static org.reactivestreams;
  requires static micrometer.core;
  requires static spring.boot;
  requires static spring.boot.autoconfigure;
  requires static spring.boot.actuator;
  requires static spring.boot.health;
  requires static spring.security.core;
  requires static spring.cloud.context;

  exports dev.ratelimit.spring;
  exports dev.ratelimit.spring.boot;

  opens dev.ratelimit.spring;
  opens dev.ratelimit.spring.boot;
}

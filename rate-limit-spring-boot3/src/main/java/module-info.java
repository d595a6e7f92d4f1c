/**
 * What rate-limit-spring needs on Spring Boot 3.5 only: the {@code rateLimit} health component on
 * Boot 3's actuator health API (docs/design.md §7.5). Inert on Boot 4.
 *
 * <p>The package is open: Spring builds its auto-configuration and calls its {@code @Bean}
 * methods. Spring Boot has no module descriptors, only {@code Automatic-Module-Name}s, so the
 * lint warnings about automatic modules are off here.
 */
// "module": the name ends in the Boot line it serves, boot3, as its package does
@SuppressWarnings({"module", "requires-automatic", "requires-transitive-automatic"})
module dev.ratelimit.spring.boot3 {
  requires dev.ratelimit.spring;
  requires spring.context;
  requires static spring.boot.actuator;
  requires static spring.boot.autoconfigure;

  exports dev.ratelimit.spring.boot3;

  opens dev.ratelimit.spring.boot3;
}

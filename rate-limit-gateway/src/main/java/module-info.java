/**
 * Rate limits for Spring Cloud Gateway: the {@code RateLimit} filter
 * ({@link dev.ratelimit.gateway.RateLimitGatewayFilterFactory}) and a limiter for the gateway's
 * own {@code RequestRateLimiter} ({@link dev.ratelimit.gateway.RateLimitGatewayLimiter}), with
 * their auto-configuration.
 *
 * <p>The package is open: Spring builds its auto-configuration and binds the filter's
 * configuration and its properties by reflection.
 *
 * <p>Spring has no module descriptors, only {@code Automatic-Module-Name}s, and Spring Cloud
 * Gateway's jar not even that (its module name comes from the file name), so the lint warnings
 * about automatic modules are off here.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.ratelimit.gateway {
  requires transitive dev.ratelimit.webflux;
  requires transitive spring.cloud.gateway.server.webflux;
  requires dev.ratelimit.spring;
  requires spring.beans;
  requires spring.boot;
  requires spring.boot.autoconfigure;
  requires spring.context;

  exports dev.ratelimit.gateway;

  opens dev.ratelimit.gateway;
}

package dev.ratelimit.gateway;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code ratelimit.gateway.*}: which limit {@code rateLimitGatewayLimiter} applies on each route.
 *
 * @since 1.0
 */
@ConfigurationProperties("ratelimit.gateway")
public class RateLimitGatewayProperties {
  /** Route id to limit name, for routes whose RequestRateLimiter args give none. */
  private Map<String, String> routes = new LinkedHashMap<>();

  public Map<String, String> getRoutes() {
    return routes;
  }

  public void setRoutes(Map<String, String> routes) {
    this.routes = routes;
  }
}

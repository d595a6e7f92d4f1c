package dev.ratelimit.gateway;

import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.spring.boot.RateLimitProperties;
import dev.ratelimit.webflux.RateLimitWebFilter;
import java.util.List;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory;

/**
 * The route filter {@code RateLimit}: {@code filters: [ { name: RateLimit, args: { limit: api,
 * key: ip, cost: 1 } } ]}. Each request through the route spends {@code cost} units of the named
 * limit ({@code ratelimit.limits.*}) from its key's bucket, with the WebFlux filter's contract
 * (docs/design.md §6): keys as in the rules, the rate limit headers, and the 429 with
 * {@code Retry-After} and the problem body. Checked when the route is built.
 */
public class RateLimitGatewayFilterFactory extends AbstractGatewayFilterFactory<RateLimitGatewayFilterFactory.Config> {
  private final RateLimiter limiter;
  private final RateLimitProperties properties;
  private final BeanFactory beanFactory;

  /** A route's {@code args}. */
  public static class Config {
    private String limit;
    private String key = "ip";
    private double cost = 1;

    public String getLimit() {
      return limit;
    }

    public void setLimit(String limit) {
      this.limit = limit;
    }

    public String getKey() {
      return key;
    }

    public void setKey(String key) {
      this.key = key;
    }

    public double getCost() {
      return cost;
    }

    public void setCost(double cost) {
      this.cost = cost;
    }
  }

  public RateLimitGatewayFilterFactory(RateLimiter limiter, RateLimitProperties properties, BeanFactory beanFactory) {
    super(Config.class);
    this.limiter = limiter;
    this.properties = properties;
    this.beanFactory = beanFactory;
  }

  @Override
  public List<String> shortcutFieldOrder() {
    return List.of("limit", "key", "cost");
  }

  /** @throws IllegalArgumentException naming the unknown limit, the bad key or cost */
  @Override
  public GatewayFilter apply(Config config) {
    RateLimitWebFilter.Builder builder = RateLimitWebFilter.builder().limiter(limiter).beanFactory(beanFactory)
        .headers(properties.getHeaders()).forwardedHeader(properties.getForwardedHeader());
    if (properties.isTrustAllProxies()) {
      builder.trustAllProxies();
    }
    if (!properties.getTrustedProxies().isBlank()) {
      builder.trustedProxies(properties.getTrustedProxies());
    }
    if (config.getLimit() == null) {
      throw new IllegalArgumentException("RateLimit filter needs args.limit, the name of a ratelimit.limits entry");
    }
    // the route already chose the requests: every one of them is charged
    RateLimitWebFilter filter = builder.rule("/**", config.getLimit(), config.getKey(), config.getCost()).build();
    return (exchange, chain) -> filter.filter(exchange, chain::filter);
  }
}

package dev.ratelimit.gateway;

import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.spring.boot.FilterRules;
import dev.ratelimit.spring.boot.RateLimitProperties;
import dev.ratelimit.webflux.RateLimitWebFilter;
import dev.ratelimit.webflux.boot.WebFluxFilterTarget;
import java.util.List;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory;

/**
 * The route filter {@code RateLimit}: {@code filters: [ { name: RateLimit, args: { limit: api,
 * key: ip, cost: 1 } } ]}. Each request through the route spends {@code cost} units of the named
 * limit ({@code ratelimit.limits.*}) from its key's bucket, with the WebFlux filter's contract
 * (docs/design.md §6): keys as in the rules, the rate limit headers, and the 429 with
 * {@code Retry-After} and the problem body. With {@code charge-on}, the charge stays only for the
 * statuses listed (the backend's, as the gateway answers with it); a request the gateway started
 * to send to the backend is charged even when its client goes away, unless
 * {@code refund-cancelled: true}. With {@code cost-header}, the cost is an estimate, settled with
 * what the backend states in that response header, which the client does not receive unless
 * {@code cost-header-pass: true} (docs/design.md §6.9). Checked when the route is built.
 *
 * @since 1.0
 */
public class RateLimitGatewayFilterFactory extends AbstractGatewayFilterFactory<RateLimitGatewayFilterFactory.Config> {
  private final RateLimiter limiter;
  private final RateLimitProperties properties;
  private final BeanFactory beanFactory;

  /**
   * A route's {@code args}: {@code limit}, {@code key} (default {@code ip}), {@code cost} (default 1),
   * {@code charge-on}, {@code refund-cancelled}, {@code cost-header} and {@code cost-header-pass}, as in
   * the rules.
   */
  public static class Config extends RateLimitProperties.Spend {}

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

  /** @throws IllegalArgumentException naming the unknown limit, the bad key, cost, charge-on or cost-header */
  @Override
  public GatewayFilter apply(Config config) {
    WebFluxFilterTarget target = new WebFluxFilterTarget(limiter, beanFactory);
    FilterRules.settings(properties, target); // the headers and proxies of every filter
    if (config.getLimit() == null) {
      throw new IllegalArgumentException("RateLimit filter needs args.limit, the name of a ratelimit.limits entry");
    }
    // the route already chose the requests: every one of them is charged
    RateLimitWebFilter.Builder builder = target.builder().rule("/**", config.getLimit(), config.getKey(), config.getCost());
    if (config.getChargeOn() != null) {
      builder.chargeOn(config.getChargeOn());
    }
    if (config.isRefundCancelled()) {
      builder.refundCancelled();
    }
    if (config.getCostHeader() != null) {
      builder.costHeader(config.getCostHeader().strip());
    }
    if (config.isCostHeaderPass()) {
      builder.passCostHeader();
    }
    RateLimitWebFilter filter = builder.build();
    // the rest of the route's chain ends in the call to the backend: subscribing to it starts the handler
    return (exchange, chain) -> filter.filter(exchange, chain::filter);
  }
}

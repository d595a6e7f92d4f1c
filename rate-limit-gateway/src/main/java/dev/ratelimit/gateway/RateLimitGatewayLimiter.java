package dev.ratelimit.gateway;

import dev.ratelimit.http.NamedLimitHeaders;
import dev.ratelimit.http.RateLimitHeaders;
import dev.ratelimit.http.Refusals;
import dev.ratelimit.limiter.RateLimiter;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.support.ConfigurationService;
import reactor.core.publisher.Mono;

/**
 * Spring Cloud Gateway's {@code RateLimiter} on this project's limits, for the stock
 * {@code RequestRateLimiter} filter: {@code rate-limiter: "#{@rateLimitGatewayLimiter}"}, the
 * route's {@code key-resolver} as before. The limit is the route's
 * {@code rate-limit.limit} argument, else {@code ratelimit.gateway.routes.<routeId>}. Exact
 * decisions, fractional rates and any period, the store's failure policy, the rate limit headers
 * and {@code Retry-After} on denials (the filter answers 429 itself, with no body).
 *
 * @since 1.0
 */
public class RateLimitGatewayLimiter extends AbstractRateLimiter<RateLimitGatewayLimiter.Config> {
  /** The prefix of a route's arguments for this limiter: {@code rate-limit.limit}. */
  public static final String CONFIGURATION_PROPERTY_NAME = "rate-limit";

  private final RateLimiter limiter;
  private final Map<String, String> routes;
  private final NamedLimitHeaders headers;

  /** A route's arguments. */
  public static class Config {
    private String limit;

    public String getLimit() {
      return limit;
    }

    public Config setLimit(String limit) {
      this.limit = limit;
      return this;
    }
  }

  /**
   * @param routes route id to limit name, from {@code ratelimit.gateway.routes}
   * @param families header families as in {@code ratelimit.headers}
   */
  public RateLimitGatewayLimiter(RateLimiter limiter, Map<String, String> routes, String families,
      ConfigurationService configurationService) {
    super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
    this.limiter = limiter;
    this.routes = Map.copyOf(routes);
    this.headers = new NamedLimitHeaders(limiter, RateLimitHeaders.parse(families));
  }

  @Override
  public Mono<Response> isAllowed(String routeId, String id) {
    String limit = limitOf(routeId);
    return Mono.fromCompletionStage(() -> limiter.named(limit).limitAsync(id, 1)).map(decision -> {
      HeaderMap map = new HeaderMap();
      headers.write(map, limit, decision);
      if (!decision.allowed()) {
        Refusals.rateLimited(map, limit, decision.retryAfterMillis());
      }
      return new Response(decision.allowed(), map.values);
    });
  }

  /** @throws IllegalStateException naming the route without a limit */
  String limitOf(String routeId) {
    Config config = getConfig().get(routeId);
    String limit = config != null && config.getLimit() != null ? config.getLimit() : routes.get(routeId);
    if (limit == null) {
      throw new IllegalStateException("route '" + routeId + "' uses rateLimitGatewayLimiter without a limit: set its"
          + " args rate-limit.limit, or ratelimit.gateway.routes." + routeId + "=<limit name>");
    }
    if (!limiter.limits().containsKey(limit)) {
      throw new IllegalStateException("route '" + routeId + "' names unknown limit '" + limit + "'; configured limits: "
          + String.join(", ", limiter.limits().keySet()));
    }
    return limit;
  }

  /** The headers as {@code RequestRateLimiter} takes them: a map it copies onto the response. */
  private static final class HeaderMap implements dev.ratelimit.http.Response {
    final Map<String, String> values = new LinkedHashMap<>();

    @Override
    public boolean containsHeader(String name) {
      return values.containsKey(name);
    }

    @Override
    public void addHeader(String name, String value) {
      values.put(name, value);
    }

    @Override
    public void setHeader(String name, String value) {
      values.put(name, value);
    }

    @Override
    public void refuse(int status, String contentType, byte[] body) {
      throw new UnsupportedOperationException("RequestRateLimiter writes the refusal itself");
    }
  }
}

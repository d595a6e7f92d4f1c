package dev.ratelimit.example.webflux;

import dev.ratelimit.webflux.RateLimitWebFilter;
import java.util.Set;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The partners' API keys, checked before the rate limit filter counts a request: a request to
 * {@code /partners/**} or {@code /messages} without a known {@code X-Api-Key} is refused with 401.
 * The {@code header:X-Api-Key} rule then counts per partner; without this check a client would
 * make up a key per request, each a fresh bucket.
 */
@Component
public class PartnerKeys implements WebFilter, Ordered {
  private final Set<String> keys;

  public PartnerKeys(@Value("${partners.api-keys}") Set<String> keys) {
    this.keys = Set.copyOf(keys);
  }

  /** Before the rate limit filter: a refused request costs no partner anything. */
  @Override
  public int getOrder() {
    return RateLimitWebFilter.ORDER - 10;
  }

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    String path = exchange.getRequest().getPath().pathWithinApplication().value();
    if (!path.startsWith("/partners/") && !path.equals("/messages")) {
      return chain.filter(exchange);
    }
    String key = exchange.getRequest().getHeaders().getFirst("X-Api-Key");
    if (key == null || !keys.contains(key)) {
      exchange.getResponse().setStatusCode(HttpStatus.UNAUTHORIZED);
      return exchange.getResponse().setComplete();
    }
    return chain.filter(exchange);
  }
}

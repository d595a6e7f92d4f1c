package dev.ratelimit.webflux.boot;

import dev.ratelimit.http.Request;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.spring.boot.FilterRules;
import dev.ratelimit.spring.boot.RequestExpression;
import dev.ratelimit.webflux.RateLimitWebFilter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.web.server.ServerWebExchange;

/**
 * {@code ratelimit.*} onto a {@link RateLimitWebFilter.Builder} ({@link FilterRules} reads it): the
 * WebFlux filter's rules, and the settings of a gateway route's filter. Rule expressions see
 * {@code #exchange}, {@code #request} (its {@code ServerHttpRequest}) and {@code #principal}.
 */
public final class WebFluxFilterTarget implements FilterRules.Target<RateLimitWebFilter> {
  private static final List<String> VARIABLES = List.of("exchange", "request", "principal");

  private final RateLimiter limiter;
  private final BeanFactory beanFactory;
  private final RateLimitWebFilter.Builder builder;

  public WebFluxFilterTarget(RateLimiter limiter, BeanFactory beanFactory) {
    this.limiter = limiter;
    this.beanFactory = beanFactory;
    this.builder = RateLimitWebFilter.builder().limiter(limiter).beanFactory(beanFactory);
  }

  /** The builder, for what the properties don't say (a gateway route's one rule). */
  public RateLimitWebFilter.Builder builder() {
    return builder;
  }

  @Override
  public List<String> variables() {
    return VARIABLES;
  }

  @Override
  public void headers(String families) {
    builder.headers(families);
  }

  @Override
  public void forwardedHeader(String header) {
    builder.forwardedHeader(header);
  }

  @Override
  public void trustAllProxies() {
    builder.trustAllProxies();
  }

  @Override
  public void trustedProxies(String proxies) {
    builder.trustedProxies(proxies);
  }

  @Override
  public void rule(FilterRules.FilterRule rule) {
    add(builder, rule);
  }

  @Override
  public void check(FilterRules.FilterRule rule) {
    add(RateLimitWebFilter.builder().limiter(limiter).beanFactory(beanFactory), rule).build();
  }

  @Override
  public RateLimitWebFilter build() {
    return builder.build();
  }

  private static RateLimitWebFilter.Builder add(RateLimitWebFilter.Builder builder, FilterRules.FilterRule rule) {
    builder.rule(rule.path(), rule.limit(), rule.key(), rule.cost());
    if (rule.methods() != null) {
      builder.methods(rule.methods());
    }
    if (rule.chargeOn() != null) {
      builder.chargeOn(rule.chargeOn());
    }
    RequestExpression plan = rule.plan();
    if (plan != null) {
      builder.plan(request -> plan.plan(variables(request)));
    }
    RequestExpression condition = rule.condition();
    if (condition != null) {
      builder.condition(request -> condition.applies(variables(request)));
    }
    return builder;
  }

  /** {@code #exchange}, {@code #request} and {@code #principal} (read by the filter). */
  private static Map<String, Object> variables(Request request) {
    ServerWebExchange exchange = (ServerWebExchange) request.unwrap();
    Map<String, Object> variables = new HashMap<>(4);
    variables.put("exchange", exchange);
    variables.put("request", exchange.getRequest());
    variables.put("principal", request.principal());
    return variables;
  }
}

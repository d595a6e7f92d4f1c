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
 *
 * @since 1.0
 */
public final class WebFluxFilterTarget
    extends FilterRules.BuilderTarget<RateLimitWebFilter.Builder, RateLimitWebFilter> {
  private static final List<String> VARIABLES = List.of("exchange", "request", "principal");

  private final RateLimiter limiter;
  private final BeanFactory beanFactory;

  public WebFluxFilterTarget(RateLimiter limiter, BeanFactory beanFactory) {
    super(VARIABLES, RateLimitWebFilter.builder().limiter(limiter).beanFactory(beanFactory));
    this.limiter = limiter;
    this.beanFactory = beanFactory;
  }

  @Override
  protected RateLimitWebFilter.Builder fresh() {
    return RateLimitWebFilter.builder().limiter(limiter).beanFactory(beanFactory);
  }

  /** The builder reads Spring path patterns and SpEL keys itself; expressions see the exchange. */
  @Override
  protected void add(RateLimitWebFilter.Builder builder, FilterRules.FilterRule rule) {
    builder.rule(rule.path(), rule.limit(), rule.key(), rule.cost());
    RequestExpression plan = rule.plan();
    if (plan != null) {
      builder.plan(request -> plan.plan(variables(request)));
    }
    RequestExpression condition = rule.condition();
    if (condition != null) {
      builder.condition(request -> condition.applies(variables(request)));
    }
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

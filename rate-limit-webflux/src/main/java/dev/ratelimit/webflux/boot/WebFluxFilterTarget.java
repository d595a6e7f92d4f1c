package dev.ratelimit.webflux.boot;

import dev.ratelimit.http.ProxyHeader;
import dev.ratelimit.http.Request;
import dev.ratelimit.http.TrustedProxies;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.spring.AuthenticatedUser;
import dev.ratelimit.spring.boot.ClientIp;
import dev.ratelimit.spring.boot.FilterRules;
import dev.ratelimit.spring.boot.RequestExpression;
import dev.ratelimit.webflux.RateLimitWebFilter;
import java.util.List;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.web.server.ServerWebExchange;

/**
 * {@code ratelimit.*} onto a {@link RateLimitWebFilter.Builder} ({@link FilterRules} reads it): the
 * WebFlux filter's rules, and the settings of a gateway route's filter. Rule plans and conditions
 * see {@code #exchange}, {@code #request} (its {@code ServerHttpRequest}), {@code #principal} and
 * {@code #authorities} (the user the filter read from {@code exchange.getPrincipal()}), and
 * {@code #clientAddress} (through the trusted proxies, as the {@code ip} key).
 *
 * @since 1.0
 */
public final class WebFluxFilterTarget
    extends FilterRules.BuilderTarget<RateLimitWebFilter.Builder, RateLimitWebFilter> {
  private static final List<String> VARIABLES = List.of("exchange", "request", "principal", "authorities",
      "clientAddress");

  private final RateLimiter limiter;
  private final BeanFactory beanFactory;
  private TrustedProxies clients;

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
    TrustedProxies clients = clients();
    RequestExpression plan = rule.plan();
    if (plan != null) {
      builder.plan(request -> plan.plan(variables(request, clients)));
    }
    RequestExpression condition = rule.condition();
    if (condition != null) {
      builder.condition(request -> condition.applies(variables(request, clients)));
    }
  }

  /** The client as the filter's {@code ip} key finds it, from the settings (given before the rules). */
  private TrustedProxies clients() {
    if (clients == null) {
      FilterRules.ClientSettings settings = clientSettings();
      clients = TrustedProxies.parse(settings.trustedProxies(), ProxyHeader.parse(settings.forwardedHeader()),
          settings.trustAllProxies());
    }
    return clients;
  }

  /** The variables on a request whose user the filter has read; each read only when an expression names it. */
  private static RequestExpression.Variables variables(Request request, TrustedProxies clients) {
    ServerWebExchange exchange = (ServerWebExchange) request.unwrap();
    return name -> switch (name) {
      case "exchange" -> exchange;
      case "request" -> exchange.getRequest();
      case "principal" -> request.principal();
      case "authorities" -> AuthenticatedUser.authorities(request.user());
      case "clientAddress" -> ClientIp.of(clients.of(request));
      default -> null;
    };
  }
}

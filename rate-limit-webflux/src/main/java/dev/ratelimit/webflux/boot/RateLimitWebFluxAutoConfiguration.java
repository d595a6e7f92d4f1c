package dev.ratelimit.webflux.boot;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.http.Request;
import dev.ratelimit.spring.boot.FilterRules;
import dev.ratelimit.spring.boot.InvalidLimitConfigurationException;
import dev.ratelimit.spring.boot.RateLimitAutoConfiguration;
import dev.ratelimit.spring.boot.RateLimitProperties;
import dev.ratelimit.spring.boot.RequestExpression;
import dev.ratelimit.webflux.RateLimitExceptionHandler;
import dev.ratelimit.webflux.RateLimitWebFilter;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;

/**
 * Rate limiting over HTTP in a reactive web application (docs/design.md §6–7), from the same
 * {@code ratelimit.*} as a servlet one: the {@link RateLimitWebFilter} for
 * {@code ratelimit.filter.rules}, and the 429 for {@code @RateLimited} methods. In a servlet
 * application rate-limit-spring registers the servlet filter instead, never both.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass({WebFilter.class, RateLimitProperties.class})
@ConditionalOnBean(RateLimiter.class)
public final class RateLimitWebFluxAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  RateLimitExceptionHandler rateLimitExceptionHandler(RateLimiter limiter, RateLimitProperties properties) {
    try {
      return new RateLimitExceptionHandler(limiter, properties.getHeaders());
    } catch (IllegalArgumentException e) {
      throw new InvalidLimitConfigurationException("ratelimit.headers=" + properties.getHeaders() + ": " + e.getMessage(), e);
    }
  }

  /** The filter, made when there are rules. */
  @Bean
  @ConditionalOnProperty(name = "ratelimit.filter.rules[0].path")
  @ConditionalOnMissingBean(name = "rateLimitWebFilter")
  RateLimitWebFilter rateLimitWebFilter(RateLimiter limiter, RateLimitProperties properties, BeanFactory beanFactory) {
    RateLimitWebFilter.Builder builder = RateLimitWebFilter.builder().limiter(limiter).beanFactory(beanFactory)
        .missingKey(properties.getFilter().getMissingKey().name().toLowerCase(java.util.Locale.ROOT));
    String property = "ratelimit.headers";
    try {
      builder.headers(properties.getHeaders());
      property = "ratelimit.forwarded-header";
      builder.forwardedHeader(properties.getForwardedHeader());
      if (properties.isTrustAllProxies()) {
        builder.trustAllProxies(); // before the proxies, which it allows to cover every address
      }
      property = "ratelimit.trusted-proxies";
      if (!properties.getTrustedProxies().isBlank()) {
        builder.trustedProxies(properties.getTrustedProxies());
      }
      for (FilterRules.FilterRule rule : FilterRules.read(properties, VARIABLES, beanFactory)) {
        property = rule.property();
        // checked alone first, so that an error names this rule's index
        addRule(RateLimitWebFilter.builder().limiter(limiter).beanFactory(beanFactory), rule).build();
        addRule(builder, rule);
      }
      property = "ratelimit.filter.rules";
      return builder.build();
    } catch (InvalidLimitConfigurationException e) {
      throw e; // names its property already
    } catch (RuntimeException e) {
      throw new InvalidLimitConfigurationException(property + ": " + e.getMessage(), e);
    }
  }

  /** What the WebFlux filter's rule expressions see: the exchange, its request and the user's name. */
  private static final Set<String> VARIABLES = Set.of("exchange", "request", "principal");

  private static RateLimitWebFilter.Builder addRule(RateLimitWebFilter.Builder builder, FilterRules.FilterRule rule) {
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

  /** {@code #exchange}, {@code #request} (its {@code ServerHttpRequest}) and {@code #principal} (read by the filter). */
  private static Map<String, Object> variables(Request request) {
    ServerWebExchange exchange = (ServerWebExchange) request.unwrap();
    Map<String, Object> variables = new HashMap<>(4);
    variables.put("exchange", exchange);
    variables.put("request", exchange.getRequest());
    variables.put("principal", request.principal());
    return variables;
  }
}

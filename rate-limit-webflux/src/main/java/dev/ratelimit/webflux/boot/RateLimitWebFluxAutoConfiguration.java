package dev.ratelimit.webflux.boot;

import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.spring.boot.InvalidLimitConfigurationException;
import dev.ratelimit.spring.boot.RateLimitAutoConfiguration;
import dev.ratelimit.spring.boot.RateLimitProperties;
import dev.ratelimit.webflux.RateLimitExceptionHandler;
import dev.ratelimit.webflux.RateLimitWebFilter;
import java.util.List;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
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
    RateLimitWebFilter.Builder builder = RateLimitWebFilter.builder().limiter(limiter).beanFactory(beanFactory);
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
      List<RateLimitProperties.Rule> rules = properties.getFilter().getRules();
      for (int i = 0; i < rules.size(); i++) {
        property = "ratelimit.filter.rules[" + i + "]";
        RateLimitProperties.Rule rule = rules.get(i);
        // checked alone first, so that an error names this rule's index
        RateLimitWebFilter.builder().limiter(limiter).beanFactory(beanFactory)
            .rule(rule.getPath(), rule.getLimit(), rule.getKey(), rule.getCost()).build();
        builder.rule(rule.getPath(), rule.getLimit(), rule.getKey(), rule.getCost());
      }
      property = "ratelimit.filter.rules";
      return builder.build();
    } catch (RuntimeException e) {
      throw new InvalidLimitConfigurationException(property + ": " + e.getMessage(), e);
    }
  }
}

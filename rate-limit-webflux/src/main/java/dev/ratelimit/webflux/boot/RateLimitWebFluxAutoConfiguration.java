package dev.ratelimit.webflux.boot;

import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.spring.boot.FilterRules;
import dev.ratelimit.spring.boot.InvalidLimitConfigurationException;
import dev.ratelimit.spring.boot.RateLimitAutoConfiguration;
import dev.ratelimit.spring.boot.RateLimitProperties;
import dev.ratelimit.webflux.RateLimitExceptionHandler;
import dev.ratelimit.webflux.RateLimitWebFilter;
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
 *
 * @since 1.0
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
    WebFluxFilterTarget target = new WebFluxFilterTarget(limiter, beanFactory);
    target.builder().missingKey(properties.getFilter().getMissingKey().spec());
    return FilterRules.build(properties, beanFactory, target);
  }
}

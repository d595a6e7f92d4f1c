package dev.ratelimit.gateway;

import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.spring.boot.InvalidLimitConfigurationException;
import dev.ratelimit.spring.boot.RateLimitAutoConfiguration;
import dev.ratelimit.spring.boot.RateLimitProperties;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.cloud.gateway.config.GatewayAutoConfiguration;
import org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;

/**
 * Spring Cloud Gateway on this project's limits: the {@code RateLimit} route filter and
 * {@code rateLimitGatewayLimiter}. Before the gateway's own auto-configuration, whose
 * {@code RequestRateLimiter} filter is made only when a {@code RateLimiter} bean exists.
 *
 * @since 1.0
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class, before = GatewayAutoConfiguration.class)
@ConditionalOnClass(AbstractGatewayFilterFactory.class)
@ConditionalOnBean(RateLimiter.class)
@EnableConfigurationProperties(RateLimitGatewayProperties.class)
public final class RateLimitGatewayAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  RateLimitGatewayFilterFactory rateLimitGatewayFilterFactory(RateLimiter limiter, RateLimitProperties properties,
      BeanFactory beanFactory) {
    return new RateLimitGatewayFilterFactory(limiter, properties, beanFactory);
  }

  @Bean
  @ConditionalOnMissingBean(name = "rateLimitGatewayLimiter")
  RateLimitGatewayLimiter rateLimitGatewayLimiter(RateLimiter limiter, RateLimitProperties properties,
      RateLimitGatewayProperties gateway, ConfigurationService configurationService) {
    gateway.getRoutes().forEach((route, limit) -> {
      if (!limiter.limits().containsKey(limit)) {
        throw new InvalidLimitConfigurationException("ratelimit.gateway.routes." + route + "=" + limit
            + ": unknown limit '" + limit + "'; configured limits: " + String.join(", ", limiter.limits().keySet()),
            null);
      }
    });
    return new RateLimitGatewayLimiter(limiter, gateway.getRoutes(), properties.getHeaders(), configurationService);
  }
}

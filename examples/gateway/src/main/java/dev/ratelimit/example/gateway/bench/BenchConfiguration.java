package dev.ratelimit.example.gateway.bench;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * Only in the {@code bench} profile ({@code examples/gateway/bench}, built with {@code -Pbench},
 * which adds Spring Data Redis reactive): SCG then makes its own {@code redisRateLimiter} next to
 * {@code rateLimitGatewayLimiter}, and its {@code RequestRateLimiter} factory takes one
 * {@code RateLimiter} as the default. Ours stays that default; the bench's SCG route names
 * {@code #{@redisRateLimiter}} explicitly.
 */
@Configuration(proxyBeanMethods = false)
@Profile("bench")
public class BenchConfiguration {

  @Bean
  static BeanFactoryPostProcessor rateLimitGatewayLimiterIsTheDefault() {
    return beanFactory -> {
      if (beanFactory.containsBeanDefinition("rateLimitGatewayLimiter")) {
        beanFactory.getBeanDefinition("rateLimitGatewayLimiter").setPrimary(true);
      }
    };
  }
}

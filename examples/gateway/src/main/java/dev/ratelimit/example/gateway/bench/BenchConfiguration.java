package dev.ratelimit.example.gateway.bench;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import reactor.core.publisher.Mono;

/**
 * Only in the {@code bench} profile ({@code examples/gateway/bench}, built with {@code -Pbench},
 * which adds Spring Data Redis reactive): SCG then makes its own {@code redisRateLimiter} next to
 * {@code rateLimitGatewayLimiter}, and its {@code RequestRateLimiter} factory takes one
 * {@code RateLimiter} and one {@code KeyResolver} as the defaults. Ours and the application's
 * {@code partnerKey} stay those defaults; the bench's SCG routes name {@code #{@redisRateLimiter}}
 * and {@code #{@apiKey}} explicitly.
 */
@Configuration(proxyBeanMethods = false)
@Profile("bench")
public class BenchConfiguration {

  /**
   * The bench's key for SCG's route: any {@code X-Api-Key}, unchecked, as the one the bench's own
   * route counts by ({@code header:X-Api-Key}): the bench sends 100,000 keys it makes up. An
   * application checks its keys first ({@code partnerKey}).
   */
  @Bean
  KeyResolver apiKey() {
    return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Api-Key"));
  }

  @Bean
  static BeanFactoryPostProcessor ourLimiterAndKeyAreTheDefaults() {
    return beanFactory -> {
      for (String bean : new String[] {"rateLimitGatewayLimiter", "partnerKey"}) {
        if (beanFactory.containsBeanDefinition(bean)) {
          beanFactory.getBeanDefinition(bean).setPrimary(true);
        }
      }
    };
  }
}

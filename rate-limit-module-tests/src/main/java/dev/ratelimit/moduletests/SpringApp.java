package dev.ratelimit.moduletests;

import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.spring.EnableRateLimiting;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** An application's configuration: rate-limit-spring's aspect around {@link LimitedService}. */
@Configuration(proxyBeanMethods = false)
@EnableRateLimiting
class SpringApp {
  @Bean
  RateLimiter rateLimiter() {
    return ModuleUser.inMemoryLimiter();
  }

  @Bean
  LimitedService limitedService() {
    return new LimitedService();
  }
}

package dev.ratelimit.spring.boot;

import dev.ratelimit.limiter.RateLimiter;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * With Spring Cloud Context on the class path, a changed {@code ratelimit.limits.*} or
 * {@code ratelimit.plans.*.*} is applied when the environment changes ({@link LimitReload}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "org.springframework.cloud.context.environment.EnvironmentChangeEvent")
class RateLimitReloadConfiguration {

  @Bean
  @ConditionalOnMissingBean
  LimitReload rateLimitReload(RateLimiter limiter, Environment environment) {
    return new LimitReload(limiter, environment);
  }
}

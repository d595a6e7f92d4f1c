package dev.ratelimit.spring.boot;

import dev.ratelimit.limiter.RateLimiter;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Spring MVC without rate-limit-servlet: {@code @RateLimited} denials still answer 429, bad counts
 * 400 ({@link RateLimitWebConfiguration} does both when rate-limit-servlet is there).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
@ConditionalOnMissingClass("dev.ratelimit.servlet.RateLimitFilter")
class RateLimitMvcConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "rateLimitExceptionResolver")
  PlainRateLimitExceptionResolver rateLimitExceptionResolver(RateLimiter limiter) {
    return new PlainRateLimitExceptionResolver(limiter.clock());
  }
}

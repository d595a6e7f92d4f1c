package dev.ratelimit.spring;

import dev.ratelimit.limiter.RateLimiter;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.EnableAspectJAutoProxy;
import org.springframework.context.annotation.Role;

/**
 * The aspect behind {@link RateLimited} and its advisor, imported by {@link EnableRateLimiting}
 * and by Spring Boot's auto-configuration. Every bean's annotations are checked as it is created,
 * so a bad one stops the application at startup.
 *
 * @since 1.0
 */
@Configuration(proxyBeanMethods = false)
@EnableAspectJAutoProxy
public class RateLimitingConfiguration {

  @Bean
  LimitedMethods rateLimitedMethods(RateLimiter limiter) {
    return new LimitedMethods(limiter);
  }

  @Bean
  RateLimitedAspect rateLimitedAspect(RateLimiter limiter, LimitedMethods methods, BeanFactory beanFactory,
      ObjectProvider<ResponseHeaders> headers) {
    return new RateLimitedAspect(limiter, methods, beanFactory, headers.getIfAvailable(() -> ResponseHeaders.NONE));
  }

  /**
   * Puts the aspect around the annotated methods. Static, and holding the aspect through a
   * provider: advisors are created before other beans are post-processed, and the aspect's
   * limiter and store must not be created that early.
   */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  static RateLimitedAdvisor rateLimitedAdvisor(ObjectProvider<RateLimitedAspect> aspect) {
    return new RateLimitedAdvisor(aspect);
  }

  /** Checks each bean's annotations at startup: unknown limits, bad SpEL, missing fallbacks. */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  static RateLimitedChecker rateLimitedChecker(ObjectProvider<LimitedMethods> methods) {
    return new RateLimitedChecker(methods);
  }
}

package dev.ratelimit.spring.ai.boot;

import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.spring.ai.RateLimitAdvisor;
import dev.ratelimit.spring.boot.InvalidLimitConfigurationException;
import dev.ratelimit.spring.boot.RateLimitAutoConfiguration;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientBuilderCustomizer;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * An LLM token budget on every {@link ChatClient} built from Spring AI's auto-configured
 * {@code ChatClient.Builder} (docs/design.md §7.6): when {@code ratelimit.ai.limit} names a limit,
 * a {@link RateLimitAdvisor} on the application's {@link RateLimiter}, added by a
 * {@link ChatClientBuilderCustomizer}. The advisor backs off when the application defines its own;
 * {@code ratelimit.ai.enabled=false} (or {@code ratelimit.enabled=false}) turns it off.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnClass({ChatClient.class, ChatClientBuilderCustomizer.class})
@ConditionalOnBooleanProperty(name = "ratelimit.ai.enabled", matchIfMissing = true)
@ConditionalOnProperty(name = "ratelimit.ai.limit")
@ConditionalOnBean(RateLimiter.class)
@EnableConfigurationProperties(RateLimitAiProperties.class)
public final class RateLimitAiAutoConfiguration {

  /**
   * @throws InvalidLimitConfigurationException naming the property, for an unknown limit or a key
   *     or estimate that does not parse or names an unknown variable
   */
  @Bean
  @ConditionalOnMissingBean
  RateLimitAdvisor rateLimitAdvisor(RateLimiter limiter, RateLimitAiProperties properties, BeanFactory beanFactory) {
    String limit = properties.getLimit().strip();
    RateLimitAdvisor.Builder advisor = RateLimitAdvisor.builder(limiter, limit)
        .missingKey(properties.getMissingKey())
        .order(properties.getOrder());
    CallExpression key = expression("ratelimit.ai.key", properties.getKey(), beanFactory);
    advisor.key(key::key);
    if (properties.getEstimate() != null) {
      CallExpression estimate = expression("ratelimit.ai.estimate", properties.getEstimate(), beanFactory);
      advisor.estimate(estimate::estimate);
    }
    try {
      return advisor.build();
    } catch (IllegalArgumentException e) {
      throw new InvalidLimitConfigurationException("ratelimit.ai.limit=" + limit + ": " + e.getMessage(), e);
    }
  }

  /** Adds the advisor to each {@code ChatClient.Builder} Spring AI makes (one per injection point). */
  @Bean
  ChatClientBuilderCustomizer rateLimitChatClientCustomizer(RateLimitAdvisor advisor) {
    return builder -> builder.defaultAdvisors(advisor);
  }

  private static CallExpression expression(String property, String text, BeanFactory beanFactory) {
    try {
      return CallExpression.parse(property, text, beanFactory);
    } catch (IllegalArgumentException e) {
      throw new InvalidLimitConfigurationException(property + "=" + text + ": " + e.getMessage(), e);
    }
  }
}

package dev.ratelimit.spring.boot;

import dev.ratelimit.bucket4j.Bucket4jStore;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.redis.RedisStore;
import dev.ratelimit.store.RateLimitStore;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/** The remote stores: {@code ratelimit.store=redis} and {@code ratelimit.store=bucket4j}. */
final class RateLimitStoreConfiguration {
  private RateLimitStoreConfiguration() {}

  /**
   * Redis: {@code ratelimit.redis.url} when set, else the application's Redis connection from
   * Spring Boot's Redis support (a {@code LettuceConnectionFactory}).
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(RedisStore.class)
  @ConditionalOnProperty(name = "ratelimit.store", havingValue = "redis")
  static class Redis {
    private static final boolean SPRING_DATA_REDIS = ClassUtils.isPresent(
        "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory", Redis.class.getClassLoader());

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    RateLimitStore rateLimitStore(RateLimitProperties properties, BeanFactory beans) {
      String url = properties.getRedis().getUrl();
      try {
        RedisStore.Builder builder = RedisStore.builder().commandTimeout(properties.getRedis().getTimeout())
            .syncInterval(properties.getRedis().getSyncInterval()).maxPending(properties.getRedis().getMaxPending());
        if (url != null && !url.isBlank()) {
          return builder.uri(url).build();
        }
        RedisStore store = SPRING_DATA_REDIS ? ApplicationRedis.store(beans, builder) : null;
        if (store != null) {
          return store;
        }
      } catch (RuntimeException e) {
        throw new InvalidLimitConfigurationException("ratelimit.store=redis"
            + (url != null && !url.isBlank() ? ", ratelimit.redis.url=" + url : " on the application's Redis connection")
            + ": " + e.getMessage(), e);
      }
      throw new InvalidLimitConfigurationException("ratelimit.store=redis needs a Redis: set ratelimit.redis.url "
          + "(redis://host:6379, rediss://, redis-sentinel://...), or configure Spring Boot's Redis "
          + "(spring.data.redis.*, a LettuceConnectionFactory bean)", null);
    }

    /**
     * Shares the limiter's runtime changes with every node on the same Redis (docs/design.md §4.3.2),
     * once every singleton exists and before the application serves: the changes Redis holds
     * are in force from the first request on. Closing the store ends the sync.
     */
    @Bean
    SmartInitializingSingleton rateLimitSync(RateLimitStore store, ObjectProvider<RateLimiter> limiter) {
      return () -> {
        RateLimiter own = limiter.getIfUnique();
        if (store instanceof RedisStore redis && own != null) {
          redis.syncLimits(own);
        }
      };
    }
  }

  /** bucket4j: the application's {@code ProxyManager<String>} bean holds the state. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(Bucket4jStore.class)
  @ConditionalOnProperty(name = "ratelimit.store", havingValue = "bucket4j")
  static class Bucket4j {

    @Bean
    @ConditionalOnMissingBean
    RateLimitStore rateLimitStore(ObjectProvider<ProxyManager<String>> proxyManagers) {
      ProxyManager<String> proxyManager = proxyManagers.getIfUnique();
      if (proxyManager == null) {
        throw new InvalidLimitConfigurationException("ratelimit.store=bucket4j needs exactly one bucket4j "
            + "ProxyManager<String> bean (JCache, Redis, a database...) but found "
            + proxyManagers.stream().count(), null);
      }
      return Bucket4jStore.of(proxyManager);
    }
  }
}

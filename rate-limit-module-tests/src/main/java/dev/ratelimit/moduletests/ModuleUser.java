package dev.ratelimit.moduletests;

import dev.ratelimit.bucket4j.Bucket4jStore;
import dev.ratelimit.gateway.RateLimitGatewayFilterFactory;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.redis.RedisStore;
import dev.ratelimit.servlet.RateLimitFilter;
import dev.ratelimit.spring.boot.RateLimitProperties;
import dev.ratelimit.store.InMemoryStore;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.webflux.RateLimitWebFilter;
import java.time.Duration;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.cloud.gateway.filter.GatewayFilter;

/**
 * What an application writes against each library module's exported API, one method per module:
 * compiled on the module path, so each call here needs its package exported to applications.
 */
final class ModuleUser {
  /** Two calls a minute, enough to tell an admitted call from a refused one. */
  static final String SPEC = "token-bucket rate=2 period=1m";

  private ModuleUser() {}

  static RateLimiter limiter(RateLimitStore store) {
    return RateLimiter.builder().store(store).limit("api", SPEC).build();
  }

  static RateLimiter inMemoryLimiter() {
    return limiter(new InMemoryStore());
  }

  static RateLimitStore bucket4jStore() {
    return Bucket4jStore.local();
  }

  /** Settles its settings without connecting: {@code build()} would dial Redis. */
  static RedisStore.Builder redisStore() {
    return RedisStore.builder().uri("redis://localhost:6379").keyPrefix("app").commandTimeout(Duration.ofMillis(100));
  }

  static RateLimitFilter servletFilter(RateLimiter limiter) {
    return RateLimitFilter.builder().limiter(limiter).rule("/api/*", "api").build();
  }

  static RateLimitWebFilter webFilter(RateLimiter limiter) {
    return RateLimitWebFilter.builder().limiter(limiter).rule("/api/**", "api").build();
  }

  static GatewayFilter gatewayFilter(RateLimiter limiter) {
    RateLimitGatewayFilterFactory factory =
        new RateLimitGatewayFilterFactory(limiter, new RateLimitProperties(), new DefaultListableBeanFactory());
    RateLimitGatewayFilterFactory.Config config = new RateLimitGatewayFilterFactory.Config();
    config.setLimit("api");
    return factory.apply(config);
  }
}

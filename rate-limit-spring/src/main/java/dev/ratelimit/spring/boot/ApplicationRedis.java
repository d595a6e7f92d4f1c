package dev.ratelimit.spring.boot;

import dev.ratelimit.redis.RedisStore;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The store on the application's Redis connection (Spring Data Redis): its Lettuce client, and
 * for a standalone server the same host, port, database and credentials. Kept apart so that it
 * loads only with Spring Data Redis.
 */
final class ApplicationRedis {
  private ApplicationRedis() {}

  /** A store on the application's LettuceConnectionFactory, or {@code null} when it has none. */
  static RedisStore store(BeanFactory beans, RedisStore.Builder builder) {
    LettuceConnectionFactory factory = beans.getBeanProvider(LettuceConnectionFactory.class).getIfUnique();
    if (factory == null) {
      return null;
    }
    if (!factory.isRunning()) {
      factory.start(); // its client is made when it starts; starting again later does nothing
    }
    AbstractRedisClient client = factory.getNativeClient();
    if (client instanceof RedisClusterClient cluster) {
      return builder.client(cluster).build();
    }
    if (factory.getSentinelConfiguration() != null) {
      throw new IllegalStateException("the application's Redis is Sentinel: set ratelimit.redis.url to "
          + "redis-sentinel://host:26379#master");
    }
    RedisStandaloneConfiguration config = factory.getStandaloneConfiguration();
    RedisURI.Builder uri = RedisURI.builder().withHost(config.getHostName()).withPort(config.getPort())
        .withDatabase(config.getDatabase()).withSsl(factory.isUseSsl());
    config.getPassword().toOptional().ifPresent(password -> {
      if (config.getUsername() != null) {
        uri.withAuthentication(config.getUsername(), password);
      } else {
        uri.withPassword(password);
      }
    });
    return builder.client((RedisClient) client).uri(uri.build()).build();
  }
}

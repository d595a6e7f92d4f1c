package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.KeySpace;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keys that UTF-8 cannot carry as they are: Lettuce writes a lone surrogate
 * as {@code ?}, so {@code "u\uD800"}, {@code "u\uDFFF"} and {@code "u?"} were one Redis key, and
 * hashed long keys collided the same way. Each must be its own bucket, through the limiter and
 * through the store alone.
 */
class SurrogateKeysIT {
  private static final String LONGER = "v".repeat(300);
  private static final List<String> KEYS =
      List.of("u\uD800", "u\uDFFF", "u?", LONGER + "\uD800", LONGER + "\uDFFF", LONGER + "?");
  private static RedisServer server;

  @BeforeAll
  static void startRedis() {
    server = RedisServer.start();
  }

  @AfterAll
  static void stopRedis() {
    if (server != null) {
      server.close();
    }
  }

  private static RedisStore store(String prefix) {
    return RedisStore.builder().uri(server.uri()).keyPrefix(prefix).commandTimeout(Duration.ofSeconds(5)).build();
  }

  private static List<?> redisKeys(String prefix) {
    return (List<?>) server.call("KEYS", prefix + ":*");
  }

  @Test
  void throughTheLimiter_eachKeyIsItsOwnBucket() {
    try (RedisStore store = store("via-limiter")) {
      RateLimiter limiter = RateLimiter.builder().store(store).storeFailure(FailurePolicy.CLOSED)
          .limit("login", "token-bucket rate=5 period=15m").build();
      for (String key : KEYS) {
        for (int i = 0; i < 5; i++) {
          assertThat(limiter.named("login").limit(key, 1).allowed()).as("%s, call %d", key, i).isTrue();
        }
        assertThat(limiter.named("login").limit(key, 1).allowed()).as("%s, sixth call", key).isFalse();
      }
      assertThat(redisKeys("via-limiter")).hasSize(KEYS.size());
    }
  }

  @Test
  void throughTheStoreAlone_eachKeyIsItsOwnBucket() {
    try (RedisStore store = store("via-store")) {
      KeySpace login = store.bind("login", Limit.parse("token-bucket rate=5 period=15m"));
      for (String key : KEYS) {
        for (int i = 0; i < 5; i++) {
          assertThat(login.apply(key, Operation.LIMIT, 1, 0).allowed()).as("%s, call %d", key, i).isTrue();
        }
        assertThat(login.apply(key, Operation.LIMIT, 1, 0).allowed()).as("%s, sixth call", key).isFalse();
      }
      assertThat(redisKeys("via-store")).hasSize(KEYS.size());
    }
  }
}

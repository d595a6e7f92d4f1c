package dev.ratelimit.bucket4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.redis.RedisServer;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** bucket4j-lettuce on a real redis-server that goes away: the store says it can't decide. */
class LettuceRedisOutageIT {
  private RedisServer server;
  private RedisClient client;
  private StatefulRedisConnection<byte[], byte[]> connection;
  private Bucket4jStore store;

  @BeforeEach
  void connect() {
    server = RedisServer.start();
    client = RedisClient.create(server.uri());
    client.setOptions(ClientOptions.builder()
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(Duration.ofSeconds(1))).build());
    connection = client.connect(ByteArrayCodec.INSTANCE);
    store = Bucket4jStore.of(Bucket4jLettuce.casBasedBuilder(connection)
        .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
        .build(), key -> key.getBytes(StandardCharsets.UTF_8));
  }

  @AfterEach
  void close() {
    connection.close();
    client.shutdown();
    server.close();
  }

  @Test
  void redisDown_isStoreUnavailableAndTheLimitsFailurePolicyDecides() {
    try (RateLimiter limiter = RateLimiter.builder().store(store)
        .limit("closed", "token-bucket rate=10 period=1m failure=closed")
        .limit("open", "token-bucket rate=10 period=1m failure=open").build()) {
      assertThat(limiter.named("closed").limit("k", 1).remaining()).isEqualTo(9);

      server.kill();

      assertThatThrownBy(() -> limiter.named("closed").limit("k", 1)).isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("bucket4j could not decide for limit 'closed'");
      assertThat(limiter.named("open").limit("k", 1).allowed()).isTrue();
      assertThatThrownBy(() -> limiter.named("closed").limitAsync("k", 1).toCompletableFuture().join())
          .isInstanceOf(CompletionException.class).hasCauseInstanceOf(StoreUnavailableException.class);
    }
  }

  @Test
  void redisBack_decidesAgainOnTheStore() {
    try (RateLimiter limiter = RateLimiter.builder().store(store).storeRetry(Duration.ofMillis(50))
        .storeFailure(FailurePolicy.CLOSED).limit("api", "token-bucket rate=10 period=1m").build()) {
      server.kill();
      assertThatThrownBy(() -> limiter.named("api").limit("k", 1)).isInstanceOf(StoreUnavailableException.class);

      server.restart();

      await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
          .until(() -> limiter.named("api").limit("k", 1).allowed() && limiter.storeAvailable());
    }
  }
}

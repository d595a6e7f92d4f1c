package dev.ratelimit.redis;

import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.ThrowingListenerContract;
import dev.ratelimit.store.RateLimitStore;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * A throwing listener breaks no decision on Redis either, where asynchronous decisions are heard
 * on the limiter's listener thread rather than on the caller's.
 */
class RedisThrowingListenerIT extends ThrowingListenerContract {
  private static final AtomicInteger STORES = new AtomicInteger();
  private static RedisServer server;
  private static StatefulRedisConnection<String, String> connection;

  @BeforeAll
  static void startRedis() {
    server = RedisServer.start();
    connection = server.connect(StringCodec.UTF8);
  }

  @AfterAll
  static void stopRedis() {
    if (server != null) {
      server.close(); // closes the connection too
    }
  }

  /** Each store its own key prefix; the test's clock, so that acquire's waits are exact. */
  @Override
  protected RateLimitStore newStore(ManualClock clock) {
    return RedisStore.builder().connection(connection).keyPrefix("l" + STORES.incrementAndGet()).clock(clock)
        .commandTimeout(Duration.ofSeconds(10)).build();
  }
}

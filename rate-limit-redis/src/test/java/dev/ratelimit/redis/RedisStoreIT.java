package dev.ratelimit.redis;

import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.RateLimitStoreContract;
import dev.ratelimit.store.RateLimitStore;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The store contract and every conformance vector against a real standalone {@code redis-server},
 * with time from the tests' manual clock (the vectors set it back), so that Java and Lua are shown
 * to decide alike.
 */
class RedisStoreIT extends RateLimitStoreContract {
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

  /**
   * Each store its own key prefix on the shared server and connection, so tests never share
   * state. A generous timeout: on a busy machine a slow answer would otherwise send a decision to
   * the failure policy (local by default) and a test could pass or fail by chance.
   */
  @Override
  protected RateLimitStore newStore(ManualClock clock) {
    return RedisStore.builder().connection(connection).keyPrefix("t" + STORES.incrementAndGet()).clock(clock)
        .commandTimeout(Duration.ofSeconds(10)).build();
  }

  @Override
  protected int callsPerThread() {
    return 5_000;
  }

  @Override
  protected int threads() {
    return 4;
  }

  @Override
  protected int replacements() {
    return 200;
  }
}

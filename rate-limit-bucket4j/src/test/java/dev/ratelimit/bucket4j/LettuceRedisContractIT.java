package dev.ratelimit.bucket4j;

import dev.ratelimit.FixedWindow;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.contract.RateLimitStoreContract;
import dev.ratelimit.redis.RedisServer;
import dev.ratelimit.store.RateLimitStore;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The store contract and the conformance vectors on bucket4j-lettuce (compare-and-swap scripts)
 * against a real redis-server, with the test's clock as bucket4j's client clock.
 */
class LettuceRedisContractIT extends RateLimitStoreContract {
  private static RedisServer server;
  private static StatefulRedisConnection<byte[], byte[]> connection;

  @BeforeAll
  static void startRedis() {
    server = RedisServer.start();
    connection = server.connect(ByteArrayCodec.INSTANCE);
  }

  @AfterAll
  static void stopRedis() {
    server.close(); // closes the connection too
  }

  @Override
  protected RateLimitStore newStore(ManualClock clock) {
    server.command("FLUSHALL"); // each store starts empty, as a new store would
    return Bucket4jStore.of(Bucket4jLettuce.casBasedBuilder(connection).clientClock(Bucket4jStore.timeMeter(clock)).build(),
        key -> key.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  protected boolean supports(Limit limit) {
    return limit instanceof TokenBucket || limit instanceof FixedWindow;
  }

  @Override
  protected int callsPerThread() {
    return 2_000;
  }

  /** bucket4j's buckets can't carry used units over to a changed limit: a clear error instead. */
  @Override
  protected boolean carriesStateOver() {
    return false;
  }
}

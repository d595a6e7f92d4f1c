package dev.ratelimit.bucket4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Operation;
import dev.ratelimit.redis.RedisServer;
import dev.ratelimit.store.KeySpace;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What a proxy manager does differently from local buckets, on bucket4j-lettuce and a real redis-server. */
class LettuceRedisStoreIT {
  private static final Limit LIMIT = Limit.parse("token-bucket rate=10 period=1s");
  private static RedisServer server;
  private static StatefulRedisConnection<byte[], byte[]> connection;
  private final ManualClock clock = new ManualClock(1_767_225_600_000L);

  @BeforeAll
  static void startRedis() {
    server = RedisServer.start();
    connection = server.connect(ByteArrayCodec.INSTANCE);
  }

  @AfterAll
  static void stopRedis() {
    server.close(); // closes the connection too
  }

  @BeforeEach
  void flush() {
    server.command("FLUSHALL");
  }

  private Bucket4jKeySpace space(ExpirationAfterWriteStrategy expiration) {
    var builder = Bucket4jLettuce.casBasedBuilder(connection).clientClock(Bucket4jStore.timeMeter(clock));
    if (expiration != null) {
      builder.expirationAfterWrite(expiration);
    }
    return (Bucket4jKeySpace) Bucket4jStore.of(builder.build(), key -> key.getBytes(StandardCharsets.UTF_8)).bind("api", LIMIT);
  }

  @Test
  void aLookAtAColdKey_storesAFullBucketStampedWithItsTime() {
    Bucket4jKeySpace space = space(null);
    KeySpace local = Bucket4jStore.local(clock).bind("api", LIMIT);

    assertThat(space.apply("k", Operation.CHECK, 1, 0)).isEqualTo(local.apply("k", Operation.CHECK, 1, 0));
    assertThat(server.command("EXISTS", space.stateKey("k"))).isEqualTo(":1");

    // a call from a clock 100 ms behind refills only from the look's time, as after any stored call
    clock.advanceMillis(-100);
    Decision proxied = space.apply("k", Operation.LIMIT, 10, 0);
    Decision fresh = local.apply("k", Operation.LIMIT, 10, 0);
    assertThat(proxied.remaining()).isEqualTo(fresh.remaining()).isZero();
    assertThat(proxied.resetAfterMillis()).isEqualTo(fresh.resetAfterMillis() + 100);
  }

  @Test
  void keysExpire_onlyAsTheProxyManagerIsConfigured() {
    Bucket4jKeySpace kept = space(null);
    kept.apply("k", Operation.LIMIT, 1, 0);
    assertThat(server.command("PTTL", kept.stateKey("k"))).as("no expiry").isEqualTo(":-1");

    server.command("FLUSHALL");
    Bucket4jKeySpace expiring = space(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(5)));
    expiring.apply("k", Operation.LIMIT, 1, 0);
    long ttl = Long.parseLong(server.command("PTTL", expiring.stateKey("k")).substring(1));
    // full again after 100 ms, kept 5 s longer
    assertThat(ttl).isBetween(4_000L, 5_100L);
  }
}

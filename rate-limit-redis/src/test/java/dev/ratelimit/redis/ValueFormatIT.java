package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.limiter.RateLimiter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The value format's version (docs/design.md §4.3 "Compatibility"), on a real redis-server: every
 * value starts with this node's version; a key holding another version, as a node of another
 * rate-limit version would write it (here: set with Lettuce, byte for byte), is never read as
 * state nor overwritten, and its requests fail as a store failure naming both versions.
 */
class ValueFormatIT {
  private static final String[] SPECS = {"token-bucket rate=5 period=1h", "gcra rate=5 period=1h",
      "fixed-window rate=5 period=1h", "sliding-window rate=5 period=1h", "sliding-log rate=5 period=1h",
      "quota rate=5 cadence=day"};
  private static final AtomicInteger NAMES = new AtomicInteger();
  private static RedisServer server;
  private static RedisStore store;
  private static RedisClient client;
  private static StatefulRedisConnection<byte[], byte[]> connection;
  private static RedisCommands<byte[], byte[]> redis;

  @BeforeAll
  static void startRedis() {
    server = RedisServer.start();
    store = RedisStore.builder().uri(server.uri()).commandTimeout(Duration.ofSeconds(5)).build();
    client = RedisClient.create(server.uri());
    connection = client.connect(ByteArrayCodec.INSTANCE);
    redis = connection.sync();
  }

  @AfterAll
  static void stopRedis() {
    if (connection != null) {
      connection.close();
      client.shutdown();
    }
    if (store != null) {
      store.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private static RateLimiter limiter(FailurePolicy failure, String name, String spec) {
    return RateLimiter.builder().store(store).storeFailure(failure).limit(name, spec).build();
  }

  private static byte[] key(String name, String key) {
    return ("ratelimit:{" + name + ':' + key + '}').getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.ISO_8859_1);
  }

  /** The value with its format version replaced: what a node writing another format leaves. */
  private static byte[] inFormat(String version, byte[] value) {
    byte[] head = bytes(version + ':');
    byte[] moved = Arrays.copyOf(head, head.length + value.length - 2);
    System.arraycopy(value, 2, moved, head.length, value.length - 2);
    return moved;
  }

  private static String name() {
    return "f" + NAMES.incrementAndGet();
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 3, 4, 5})
  void everyKindWrites_itsFormatVersionFirst(int kind) {
    String name = name();
    limiter(FailurePolicy.CLOSED, name, SPECS[kind]).named(name).limit("k", 1);
    String head = new String(redis.get(key(name, "k")), StandardCharsets.ISO_8859_1).substring(0, 10);
    assertThat(head).matches(ValueFormat.VERSION + ":[0-9a-f]{8}");
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 3, 4, 5})
  void aValueOfANewerFormat_isRefusedNamingBothVersions_andLeftAsItIs(int kind) {
    String name = name();
    RateLimiter writer = limiter(FailurePolicy.CLOSED, name, SPECS[kind]);
    writer.named(name).limit("k", 2);
    byte[] newer = inFormat("2", redis.get(key(name, "k")));
    redis.set(key(name, "k"), newer);

    RateLimiter closed = limiter(FailurePolicy.CLOSED, name, SPECS[kind]);
    assertThatThrownBy(() -> closed.named(name).limit("k", 1)).isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("limit '" + name + "'").hasMessageContaining("value of format 2")
        .hasMessageContaining("reads format 1 only");
    assertThat(closed.storeAvailable()).as("a store failure, as any other").isFalse();
    assertThat(redis.get(key(name, "k"))).as("neither read nor overwritten").isEqualTo(newer);

    RateLimiter async = limiter(FailurePolicy.CLOSED, name, SPECS[kind]);
    assertThatThrownBy(() -> async.named(name).limitAsync("k", 1).toCompletableFuture().join())
        .isInstanceOf(CompletionException.class).hasCauseInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("value of format 2");
    RateLimiter resetting = limiter(FailurePolicy.CLOSED, name, SPECS[kind]);
    assertThatThrownBy(() -> resetting.named(name).reset("k")).isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("value of format 2");
    assertThat(redis.get(key(name, "k"))).as("not reset either").isEqualTo(newer);
  }

  @Test
  void aValueOfAnotherFormat_isDecidedByTheFailurePolicy() {
    String name = name();
    limiter(FailurePolicy.CLOSED, name, SPECS[0]).named(name).limit("k", 5);
    byte[] newer = inFormat("17", redis.get(key(name, "k")));
    redis.set(key(name, "k"), newer);

    RateLimiter open = limiter(FailurePolicy.OPEN, name, SPECS[0]);
    assertThat(open.named(name).limit("k", 1).allowed()).as("the open policy admits; the key in Redis is empty").isTrue();
    assertThat(open.storeAvailable()).isFalse();
    assertThat(redis.get(key(name, "k"))).isEqualTo(newer);
  }

  @Test
  void anAllOrNothingCallOverAKeyOfAnotherFormat_failsWhole_andWritesNothing() {
    String name = name();
    String other = name();
    RateLimiter writer = RateLimiter.builder().store(store).storeFailure(FailurePolicy.CLOSED)
        .limit(name, SPECS[0]).limit(other, SPECS[3]).build();
    writer.named(name).limit("k", 1);
    redis.set(key(name, "k"), inFormat("2", redis.get(key(name, "k"))));

    RateLimiter closed = RateLimiter.builder().store(store).storeFailure(FailurePolicy.CLOSED)
        .limit(name, SPECS[0]).limit(other, SPECS[3]).build();
    assertThatThrownBy(() -> closed.limitAll(closed.named(other).call("k", 1), closed.named(name).call("k", 1)))
        .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("limit '" + name + "'");
    assertThat(redis.exists(key(other, "k"))).as("the other charge took nothing").isZero();
  }

  @Test
  void aValueWithoutAFormatVersion_isNoStateOfOurs_andReadsAsAFreshKey() {
    for (String foreign : new String[] {"garbage", "1234567890:a version has at most nine digits", ":1", "x1:"}) {
      String name = name();
      redis.set(key(name, "k"), bytes(foreign));
      Decision decision = limiter(FailurePolicy.CLOSED, name, SPECS[0]).named(name).limit("k", 1);
      assertThat(decision.remaining()).as(foreign).isCloseTo(4, within(1e-9));
      assertThat(new String(redis.get(key(name, "k")), StandardCharsets.ISO_8859_1)).as(foreign)
          .startsWith(ValueFormat.VERSION + ":");
    }
  }

  @Test
  void aValueOfThisFormat_underAnotherLimitOfTheName_isCarriedOverByItsSignature() {
    String name = name();
    limiter(FailurePolicy.CLOSED, name, "token-bucket rate=5 period=1h").named(name).limit("k", 5);
    Decision after = limiter(FailurePolicy.CLOSED, name, "token-bucket rate=8 period=1h").named(name).check("k", 0);
    assertThat(after.remaining()).as("5 used of 8").isCloseTo(3, within(1e-2));
  }
}

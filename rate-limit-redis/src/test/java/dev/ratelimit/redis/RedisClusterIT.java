package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.RateLimitStoreContract;
import dev.ratelimit.limiter.Decisions;
import dev.ratelimit.limiter.NamedLimiter;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.RateLimitStore;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store contract and the vectors on a three-master Redis Cluster: keys spread over the
 * masters by their {@code {name:key}} hash tag; all-or-nothing calls over keys in several slots
 * take the charges one by one.
 */
class RedisClusterIT extends RateLimitStoreContract {
  private static final AtomicInteger STORES = new AtomicInteger();
  private static RedisCluster cluster;
  /** A store with a Cluster client of its own, as applications make one. */
  private static RedisStore shared;
  private static RedisClusterClient client;
  private static StatefulRedisClusterConnection<String, String> connection;

  @BeforeAll
  static void startCluster() {
    cluster = RedisCluster.start(3);
    shared = RedisStore.builder().cluster(cluster.uris().toArray(String[]::new))
        .commandTimeout(Duration.ofSeconds(10)).build();
    client = RedisClusterClient.create(cluster.uris().stream().map(RedisURI::create).toList());
    connection = client.connect(StringCodec.UTF8);
  }

  @AfterAll
  static void stopCluster() {
    if (shared != null) {
      shared.close();
    }
    if (connection != null) {
      connection.close();
    }
    if (client != null) {
      client.shutdown();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /** Stores on one shared Cluster connection, each with its own prefix (see {@link RedisStoreIT}). */
  @Override
  protected RateLimitStore newStore(ManualClock clock) {
    return RedisStore.builder().connection(connection).keyPrefix("c" + STORES.incrementAndGet()).clock(clock)
        .commandTimeout(Duration.ofSeconds(10)).build();
  }

  @Override
  protected int callsPerThread() {
    return 2_000;
  }

  @Test
  void keys_spreadOverEveryMaster() {
    RateLimiter limiter = RateLimiter.builder().store(shared).storeFailure(FailurePolicy.CLOSED)
        .limit("spread", "token-bucket rate=10 period=1h").build();
    for (int i = 0; i < 30; i++) {
      assertThat(limiter.named("spread").limit("user-" + i, 1).allowed()).isTrue();
    }
    assertThat(cluster.nodes()).allSatisfy(node -> assertThat((Long) node.call("DBSIZE")).isPositive());
  }

  @Test
  void limitAll_overSeveralSlotsIsStillAllOrNothing() {
    RateLimiter limiter = RateLimiter.builder().store(shared).storeFailure(FailurePolicy.CLOSED)
        .limit("minute", "token-bucket rate=5 period=1h").limit("daily", "fixed-window rate=3 period=1d").build();
    assertThat(SlotHash.getSlot("ratelimit:{minute:u}")).isNotEqualTo(SlotHash.getSlot("ratelimit:{daily:u}"));
    Decisions first = limiter.limitAll(limiter.named("minute").call("u", 2), limiter.named("daily").call("u", 2));
    assertThat(first.allowed()).isTrue();
    Decisions denied = limiter.limitAll(limiter.named("minute").call("u", 2), limiter.named("daily").call("u", 2));
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.decisions().get(1).allowed()).isFalse();
    assertThat(limiter.named("minute").check("u", 0).remaining()).as("given back").isCloseTo(3, within(1e-3));
  }
}

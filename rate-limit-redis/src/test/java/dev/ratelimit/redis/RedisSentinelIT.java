package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.limiter.RateLimiter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Redis behind a Sentinel: the store finds the master through it ({@code redis-sentinel://} URI)
 * and, after a failover, decides on the promoted replica, with the state it replicated.
 */
class RedisSentinelIT {
  private RedisServer master;
  private RedisServer replica;
  private RedisSentinel sentinel;

  @BeforeEach
  void startRedis() {
    master = RedisServer.start();
    replica = RedisServer.start("--replicaof", "127.0.0.1", Integer.toString(master.port()));
    sentinel = RedisSentinel.watching(master, 1000);
  }

  @AfterEach
  void stopRedis() {
    for (AutoCloseable process : List.<AutoCloseable>of(sentinel, replica, master)) {
      try {
        process.close();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }

  @Test
  void failover_decisionsMoveToThePromotedReplicaWithTheirState() {
    // the replica's first sync can take seconds on a loaded machine, and the sentinel hears of the
    // replica only from the master's INFO (every 10 s): killing the master earlier leaves it
    // nothing to promote
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
        .until(() -> sentinel.knowsHealthyReplica(replica));
    RedisStore store = RedisStore.builder().uri(sentinel.uri()).commandTimeout(Duration.ofSeconds(1)).build();
    try (RateLimiter limiter = RateLimiter.builder().store(store).storeFailure(FailurePolicy.CLOSED)
        .storeRetry(Duration.ofMillis(100)).limit("api", "token-bucket rate=5 period=365d").build()) {
      assertThat(limiter.named("api").limit("k", 3).allowed()).isTrue();
      assertThat(master.call("EXISTS", "ratelimit:{api:k}")).as("on the master").isEqualTo(1L);
      assertThat(master.call("WAIT", "1", "4000")).as("replicated").isEqualTo(1L);

      master.kill();
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
        try {
          return limiter.named("api").check("k", 0).remaining() < 5;
        } catch (StoreUnavailableException duringFailover) {
          return false;
        }
      });
      assertThat(((String) replica.call("INFO", "replication"))).contains("role:master");
      assertThat(limiter.named("api").check("k", 0).remaining()).as("the replicated state").isCloseTo(2, within(1e-3));
      assertThat(limiter.named("api").limit("k", 2).allowed()).isTrue();
      assertThat(limiter.named("api").limit("k", 1).allowed()).isFalse();
    }
  }
}

package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Limit;
import dev.ratelimit.limiter.RateLimiter;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Runtime changes shared through a real three-master Redis Cluster: the hash is one key, on one slot. */
class LimitSyncClusterIT {
  private static RedisCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = RedisCluster.start(3);
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static RateLimiter node() {
    RedisStore store = RedisStore.builder().cluster(cluster.uris().toArray(String[]::new))
        .commandTimeout(Duration.ofSeconds(2)).syncInterval(Duration.ofHours(1)).build();
    RateLimiter limiter = RateLimiter.builder().store(store).storeFailure(FailurePolicy.CLOSED)
        .limit("api", "token-bucket rate=3 period=1h").build();
    store.syncLimits(limiter);
    return limiter;
  }

  @Test
  void replaceOnOneNode_isInForceOnTheOtherAfterItsPoll_andOnANodeStartedLater() {
    try (RateLimiter a = node(); RateLimiter b = node()) {
      a.named("api").replace("token-bucket rate=5 period=1h");
      ((RedisStore) b.store()).limitSync().poll();
      assertThat(b.limits().get("api")).isEqualTo(Limit.parse("token-bucket rate=5 period=1h"));
      assertThat(b.named("api").limit("k", 5).allowed()).isTrue();
      assertThat(a.named("api").limit("k", 1).allowed()).isFalse();
      try (RateLimiter later = node()) {
        assertThat(later.limits().get("api")).isEqualTo(Limit.parse("token-bucket rate=5 period=1h"));
      }
    }
  }
}

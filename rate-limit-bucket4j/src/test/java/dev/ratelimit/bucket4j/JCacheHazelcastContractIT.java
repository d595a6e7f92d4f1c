package dev.ratelimit.bucket4j;

import dev.ratelimit.FixedWindow;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.contract.RateLimitStoreContract;
import dev.ratelimit.store.RateLimitStore;
import io.github.bucket4j.grid.jcache.Bucket4jJCache;
import javax.cache.Cache;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The store contract and the conformance vectors on JCache over an embedded two-member Hazelcast
 * cluster: bucket4j's entry processors run on the member that owns each key, reading the test's
 * clock sent along as bucket4j's client clock.
 */
class JCacheHazelcastContractIT extends RateLimitStoreContract {
  private static HazelcastCluster cluster;
  private static Cache<String, byte[]> cache;

  @BeforeAll
  static void startCluster() {
    cluster = HazelcastCluster.start(2);
    cache = cluster.cache(0, "buckets");
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  @Override
  protected RateLimitStore newStore(ManualClock clock) {
    cache.clear(); // each store starts empty, as a new store would
    return Bucket4jStore.of(Bucket4jJCache.entryProcessorBasedBuilder(cache)
        .clientClock(Bucket4jStore.timeMeter(clock)).build());
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

package dev.ratelimit.benchmarks.bucket4j;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.benchmarks.Contender;
import dev.ratelimit.bucket4j.Bucket4jStore;

/**
 * The bucket4j bridge on local buckets behind a {@link RateLimiter}: what the in-memory store's
 * users would pay to let bucket4j hold the state. The other contenders are the existing ones.
 */
public final class BridgeContender implements Contender {
  private final RateLimiter limiter;

  private BridgeContender(Config config) {
    limiter = RateLimiter.builder().store(Bucket4jStore.local())
        .limit("api", Limit.tokenBucket(config.rate(), config.period())).build();
  }

  /** {@code bucket4j-bridge}, or one of {@link Contender#create}'s. */
  public static Contender create(String name, Config config) {
    return name.equals("bucket4j-bridge") ? new BridgeContender(config) : Contender.create(name, config);
  }

  @Override
  public Object acquire(String key) {
    return limiter.limit("api", key, 1);
  }

  @Override
  public boolean admitted(Object result) {
    return ((Decision) result).allowed();
  }

  @Override
  public Object state() {
    return limiter;
  }
}

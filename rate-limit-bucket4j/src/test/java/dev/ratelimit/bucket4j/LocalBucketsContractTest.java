package dev.ratelimit.bucket4j;

import dev.ratelimit.FixedWindow;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.contract.RateLimitStoreContract;
import dev.ratelimit.store.RateLimitStore;

/** The store contract and the conformance vectors on bucket4j local buckets. */
class LocalBucketsContractTest extends RateLimitStoreContract {

  @Override
  protected RateLimitStore newStore(ManualClock clock) {
    return Bucket4jStore.local(clock);
  }

  @Override
  protected boolean supports(Limit limit) {
    return limit instanceof TokenBucket || limit instanceof FixedWindow;
  }

  /** bucket4j's buckets can't carry used units over to a changed limit: a clear error instead. */
  @Override
  protected boolean carriesStateOver() {
    return false;
  }
}

package dev.ratelimit.store;

import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.RateLimitStoreContract;

class InMemoryStoreTest extends RateLimitStoreContract {

  @Override
  protected RateLimitStore newStore(ManualClock clock) {
    return new InMemoryStore(clock);
  }
}

package dev.ratelimit.limiter;

import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.ThrowingListenerContract;
import dev.ratelimit.store.InMemoryStore;
import dev.ratelimit.store.RateLimitStore;

/** A throwing listener breaks no decision on the in-memory store. */
class ThrowingListenerTest extends ThrowingListenerContract {
  @Override
  protected RateLimitStore newStore(ManualClock clock) {
    return new InMemoryStore(clock);
  }
}

package dev.ratelimit.webflux;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.store.KeySpace;
import dev.ratelimit.store.Operation;
import dev.ratelimit.store.RateLimitStore;

/** A remote store that is down: every decision fails as a lost connection would. */
final class UnavailableStore implements RateLimitStore {
  UnavailableStore() {}

  @Override
  public KeySpace bind(String name, Limit limit) {
    return new KeySpace() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public Limit limit() {
        return limit;
      }

      @Override
      public Decision apply(String key, Operation op, double count, long maxWaitMillis) {
        throw new StoreUnavailableException("connection refused (test)", null);
      }

      @Override
      public void reset(String key) {
        throw new StoreUnavailableException("connection refused (test)", null);
      }

      @Override
      public Decision refund(String key, double count) {
        throw new StoreUnavailableException("connection refused (test)", null);
      }
    };
  }
}

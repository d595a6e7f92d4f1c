package dev.ratelimit.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Decision;
import dev.ratelimit.ManualClock;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.store.RateLimitStore;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * What every store must do, whatever keeps its state. A store's test extends this and only
 * builds the store; the conformance vectors run against it line by line.
 */
public abstract class RateLimitStoreContract {

  /** A new, empty store reading {@code clock} (or, for a remote store, agreeing with it). */
  protected abstract RateLimitStore newStore(ManualClock clock);

  protected RateLimiter limiter(ManualClock clock, String name, String spec) {
    return RateLimiter.builder().clock(clock).store(newStore(clock)).limit(name, spec).build();
  }

  @TestFactory
  Stream<DynamicTest> conformanceVectors() {
    return Vectors.all().stream().map(scenario -> DynamicTest.dynamicTest(scenario.name(),
        () -> Vectors.assertMatches(scenario, Vectors.replay(scenario, this::newStore))));
  }
}

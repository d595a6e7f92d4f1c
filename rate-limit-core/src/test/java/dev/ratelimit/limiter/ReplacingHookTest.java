package dev.ratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.Clock;
import dev.ratelimit.InvalidLimitSpecException;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.store.InMemoryStore;
import dev.ratelimit.store.KeySpace;
import dev.ratelimit.store.RateLimitStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code RateLimitStore.replacing}: how a shared store hears of a replace, and refuses one. */
class ReplacingHookTest {
  private final ManualClock clock = new ManualClock(0);

  /** An in-memory store that notes each replacement, and refuses them while {@code refusing}. */
  private static final class Hearing implements RateLimitStore {
    private final InMemoryStore inner;
    final List<String> heard = new ArrayList<>();
    boolean refusing;

    Hearing(Clock clock) {
      this.inner = new InMemoryStore(clock);
    }

    @Override
    public KeySpace bind(String name, Limit limit) {
      return inner.bind(name, limit);
    }

    @Override
    public KeySpace rebind(KeySpace previous, Limit limit) {
      return inner.rebind(previous, limit);
    }

    @Override
    public KeySpace share(KeySpace sibling, Limit limit) {
      return inner.share(sibling, limit);
    }

    @Override
    public boolean canFail() {
      return false;
    }

    @Override
    public void replacing(String name, String plan, Limit limit) {
      if (refusing) {
        throw new StoreUnavailableException("not now", null);
      }
      heard.add(name + "/" + plan + "=" + limit);
    }
  }

  @Test
  void replace_tellsTheStoreTheNamePlanAndLimit_once() {
    Hearing store = new Hearing(clock);
    RateLimiter limiter = RateLimiter.builder().store(store).limit("api", "10/1h").onPlan("pro").limit("api", "100/1h").build();
    assertThat(store.heard).as("building is no replacement").isEmpty();

    limiter.named("api").replace("20/1h");
    limiter.named("api").onPlan("pro").replace(Limit.parse("200/1h"));

    assertThat(store.heard).containsExactly("api/null=" + Limit.parse("20/1h"), "api/pro=" + Limit.parse("200/1h"));
  }

  @Test
  void replace_thatTheStoreRefuses_changesNothing() {
    Hearing store = new Hearing(clock);
    RateLimiter limiter = RateLimiter.builder().store(store).limit("api", "3/1h").build();
    limiter.named("api").limit("k", 2);
    store.refusing = true;

    assertThatThrownBy(() -> limiter.named("api").replace("5/1h")).isInstanceOf(StoreUnavailableException.class);

    assertThat(limiter.limits().get("api")).isEqualTo(Limit.parse("3/1h"));
    assertThat(limiter.named("api").limit("k", 1).allowed()).isTrue();
    assertThat(limiter.named("api").limit("k", 1).allowed()).as("still the old capacity of 3").isFalse();
  }

  @Test
  void replace_aBadSpecOrUnknownPlan_neverReachesTheStore() {
    Hearing store = new Hearing(clock);
    RateLimiter limiter = RateLimiter.builder().store(store).limit("api", "3/1h").build();
    assertThatThrownBy(() -> limiter.named("api").replace("3/1x")).isInstanceOf(InvalidLimitSpecException.class);
    assertThatThrownBy(() -> limiter.named("api").onPlan("gold").replace(Limit.parse("3/1h")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store.heard).isEmpty();
  }
}

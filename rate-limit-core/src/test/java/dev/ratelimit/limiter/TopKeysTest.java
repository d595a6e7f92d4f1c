package dev.ratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.SwitchableStore;
import dev.ratelimit.internal.LongKeys;
import dev.ratelimit.store.InMemoryStore;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** docs/design.md §10.2: each named limit's heaviest keys, as the limiter decided them once. */
class TopKeysTest {
  private final ManualClock clock = new ManualClock(1_767_225_600_000L);

  private RateLimiter.Builder tracking() {
    return RateLimiter.builder().clock(clock).trackTopKeys(64, Duration.ofMinutes(1));
  }

  @Test
  void topKeys_listsTheHeaviestFirst_withUnitsTakenAndRefused() {
    RateLimiter limiter = tracking().limit("api", "token-bucket rate=5 period=1h").build();
    for (int i = 0; i < 8; i++) {
      limiter.named("api").limit("scraper", 1);
    }
    limiter.named("api").limit("ann", 2);
    limiter.named("api").limit("bob", 1);
    assertThat(limiter.named("api").topKeys(10)).containsExactly(
        new NamedLimiter.TopKey("scraper", 5, 3, 0), new NamedLimiter.TopKey("ann", 2, 0, 0), new NamedLimiter.TopKey("bob", 1, 0, 0));
    assertThat(limiter.named("api").topKeys(1)).extracting(NamedLimiter.TopKey::key).containsExactly("scraper");
    assertThat(limiter.named("api").topKeys(0)).isEmpty();
  }

  @Test
  void topKeys_countEachOperationThatTakesUnits_onceAndUnderTheLimitsName() throws Exception {
    RateLimiter limiter = tracking()
        .limit("api", "token-bucket rate=100 period=1h")
        .onPlan("pro").limit("api", "fixed-window rate=100 period=1h") // a state of its own: api@pro
        .limit("hot", "token-bucket rate=100 period=1h shards=4")
        .build();
    limiter.named("api").limit("k", 1);
    limiter.named("api").onPlan("pro").limit("k", 2);
    limiter.named("api").reserve("k", 3);
    limiter.named("api").acquire("k", 4, Duration.ZERO);
    limiter.named("api").charge("k", 5).settle(true);
    limiter.limitAll(limiter.named("api").call("k", 6), limiter.named("hot").call("k", 7));
    limiter.named("api").limitAsync("k", 8).toCompletableFuture().join();
    assertThat(limiter.named("api").admit("k", 9)).isTrue();
    limiter.named("api").check("k", 50); // takes nothing: not counted
    limiter.named("hot").limit("k", 10);

    assertThat(limiter.named("api").topKeys(10)).containsExactly(new NamedLimiter.TopKey("k", 1 + 2 + 3 + 4 + 5 + 6 + 8 + 9, 0, 0));
    assertThat(limiter.named("hot").topKeys(10)).as("a sharded key once, by its own name, not per shard")
        .containsExactly(new NamedLimiter.TopKey("k", 17, 0, 0));
  }

  @Test
  void topKeys_countWouldBeDenialsOfAShadowLimitAsRefused() {
    RateLimiter limiter = tracking().limit("api", "token-bucket rate=2 period=1h mode=shadow").build();
    for (int i = 0; i < 5; i++) {
      assertThat(limiter.named("api").limit("k", 1).allowed()).isTrue();
    }
    limiter.limitAll(limiter.named("api").call("k"));
    assertThat(limiter.named("api").topKeys(10)).containsExactly(new NamedLimiter.TopKey("k", 2, 4, 0));
  }

  @Test
  void topKeys_countDecisionsOfAFailurePolicyToo() {
    SwitchableStore store = new SwitchableStore(new InMemoryStore(clock));
    RateLimiter limiter = tracking().store(store).storeFailure(FailurePolicy.OPEN)
        .limit("api", "token-bucket rate=1 period=1h").build();
    limiter.named("api").limit("k", 1);
    store.switchOff();
    limiter.named("api").limit("k", 1);
    limiter.named("api").limit("k", 1);
    assertThat(limiter.named("api").topKeys(10)).containsExactly(new NamedLimiter.TopKey("k", 3, 0, 0));
  }

  @Test
  void topKeys_showALongKeyAsTheLimiterBoundedIt() {
    RateLimiter limiter = tracking().limit("api", "token-bucket rate=10 period=1h mode=shadow")
        .limit("other", "10/1h").build();
    String longKey = "x".repeat(100_000);
    limiter.named("api").limit(longKey, 1);
    limiter.limitAll(limiter.named("api").call(longKey), limiter.named("other").call("k")); // shadow parts go their own way
    assertThat(limiter.named("api").topKeys(10)).containsExactly(new NamedLimiter.TopKey(LongKeys.bounded(longKey), 2, 0, 0));
    assertThat(limiter.named("api").check(longKey, 0).remaining()).as("both on the bounded key's state").isEqualTo(8);
  }

  @Test
  void topKeys_coverTheCurrentWindowAndTheOneBefore() {
    RateLimiter limiter = tracking().limit("api", "100/1h").build();
    clock.setMillis(60_000L * 1000); // the start of a window
    limiter.named("api").limit("early", 1);
    clock.advance(Duration.ofSeconds(59));
    limiter.named("api").limit("late", 1);
    clock.advance(Duration.ofSeconds(1)); // the next window: both still shown
    assertThat(limiter.named("api").topKeys(10)).extracting(NamedLimiter.TopKey::key).containsExactly("early", "late");
    limiter.named("api").limit("now", 1);
    clock.advance(Duration.ofMinutes(1)); // the window before is gone
    assertThat(limiter.named("api").topKeys(10)).extracting(NamedLimiter.TopKey::key).containsExactly("now");
    clock.advance(Duration.ofMinutes(5));
    assertThat(limiter.named("api").topKeys(10)).isEmpty();
  }

  @Test
  void topKeys_keepCountingWhenTheClockGoesBack() {
    RateLimiter limiter = tracking().limit("api", "100/1h").build();
    limiter.named("api").limit("k", 1);
    clock.advance(Duration.ofMinutes(-10));
    limiter.named("api").limit("k", 1);
    assertThat(limiter.named("api").topKeys(10)).containsExactly(new NamedLimiter.TopKey("k", 2, 0, 0));
  }

  @Test
  void topKeys_surviveAReplacementOfTheLimit() {
    RateLimiter limiter = tracking().limit("api", "100/1h").build();
    limiter.named("api").limit("k", 1);
    limiter.named("api").replace("fixed-window rate=100 period=1h");
    limiter.named("api").limit("k", 1);
    assertThat(limiter.named("api").topKeys(10)).containsExactly(new NamedLimiter.TopKey("k", 2, 0, 0));
  }

  @Test
  void aFloodOfDistinctKeys_leavesTheFloodingKeyFirst_withinTheBound() {
    RateLimiter limiter = tracking().limit("api", "token-bucket rate=1000 period=1h").build();
    for (int i = 0; i < 200_000; i++) {
      limiter.named("api").limit("client-" + i, 1);
      if (i % 20 == 0) {
        limiter.named("api").limit("flood", 1);
      }
    }
    NamedLimiter.TopKey first = limiter.named("api").topKeys(1).get(0);
    assertThat(first.key()).isEqualTo("flood");
    assertThat(first.units()).as("in from its first request, never replaced").isEqualTo(1000);
    assertThat(first.denied()).isEqualTo(9000);
    assertThat(first.uncounted()).isZero();
    List<NamedLimiter.TopKey> listed = limiter.named("api").topKeys(1000);
    assertThat(listed).hasSizeGreaterThanOrEqualTo(64);
    assertThat(listed.subList(1, listed.size())).as("the noise: each within W / size of its truth, 1")
        .allSatisfy(key -> assertThat(key.units() + key.denied() + key.uncounted()).isLessThanOrEqualTo(1 + 210_000 / 64.0));
  }

  @Test
  void notTracked_isAClearRefusal() {
    RateLimiter limiter = RateLimiter.builder().clock(clock).limit("api", "10/1m").build();
    assertThatThrownBy(() -> limiter.named("api").topKeys(10)).isInstanceOf(IllegalStateException.class)
        .hasMessage("top keys are not tracked; turn them on with RateLimiter.builder().trackTopKeys(size, window)");
  }

  @Test
  void badArguments_areRefusedNamingTheSetting() {
    RateLimiter limiter = tracking().limit("api", "10/1m").build();
    assertThatThrownBy(() -> limiter.named("apx").topKeys(10)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown limit 'apx'; configured limits: api");
    assertThatThrownBy(() -> limiter.named("api").topKeys(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("max must be 0 or more but was -1");
    RateLimiter.Builder builder = RateLimiter.builder();
    assertThatThrownBy(() -> builder.trackTopKeys(0, Duration.ofMinutes(1))).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("top keys size must be from 1 to 65536 but was 0");
    assertThatThrownBy(() -> builder.trackTopKeys(65_537, Duration.ofMinutes(1)))
        .hasMessage("top keys size must be from 1 to 65536 but was 65537");
    assertThatThrownBy(() -> builder.trackTopKeys(10, Duration.ZERO))
        .hasMessage("top keys window must be at least 1 ms but was PT0S");
    assertThatThrownBy(() -> builder.trackTopKeys(10, Duration.ofNanos(999_999)))
        .hasMessage("top keys window must be at least 1 ms but was PT0.000999999S");
    assertThatThrownBy(() -> builder.trackTopKeys(10, null))
        .hasMessage("top keys window must be at least 1 ms but was null");
  }

  @Test
  void aWindowLongerThanMillisecondsHold_isOneWindowForEver() {
    RateLimiter limiter = RateLimiter.builder().clock(clock).trackTopKeys(8, Duration.ofSeconds(Long.MAX_VALUE))
        .limit("api", "10/1m").build();
    limiter.named("api").limit("k", 1);
    clock.advance(Duration.ofDays(365_000));
    assertThat(limiter.named("api").topKeys(10)).containsExactly(new NamedLimiter.TopKey("k", 1, 0, 0));
  }
}

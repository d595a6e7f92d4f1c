package dev.ratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.ManualClock;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.contract.SwitchableStore;
import dev.ratelimit.store.InMemoryStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** docs/design.md §4: while a store can't decide, each limit follows its failure policy. */
class FailurePolicyTest {
  private final ManualClock clock = new ManualClock(1_767_225_600_000L);
  private final SwitchableStore store = new SwitchableStore(new InMemoryStore(clock));

  private RateLimiter limiter(FailurePolicy policy, String... namesAndSpecs) {
    RateLimiter.Builder builder = RateLimiter.builder().clock(clock).store(store).storeFailure(policy)
        .storeRetry(Duration.ofSeconds(1));
    for (int i = 0; i < namesAndSpecs.length; i += 2) {
      builder.limit(namesAndSpecs[i], namesAndSpecs[i + 1]);
    }
    return builder.build();
  }

  @Test
  void open_admitsWhileTheStoreIsDownAndDecisionsResumeOnIt() {
    RateLimiter limiter = limiter(FailurePolicy.OPEN, "api", "token-bucket rate=2 period=365d");
    limiter.named("api").limit("k", 2);
    store.switchOff();
    for (int i = 0; i < 5; i++) {
      assertThat(limiter.named("api").limit("k", 1).allowed()).isTrue();
    }
    assertThat(limiter.storeAvailable()).isFalse();
    store.switchOn();
    clock.advance(Duration.ofSeconds(1));
    assertThat(limiter.named("api").limit("k", 1).allowed()).as("the store's state again").isFalse();
    assertThat(limiter.storeAvailable()).isTrue();
  }

  @Test
  void closed_passesTheFailureOn() {
    RateLimiter limiter = limiter(FailurePolicy.CLOSED, "api", "10/1m");
    store.switchOff();
    assertThatThrownBy(() -> limiter.named("api").limit("k", 1)).isInstanceOf(StoreUnavailableException.class)
        .hasMessage("switched off");
    assertThatThrownBy(() -> limiter.limitAll(limiter.named("api").call("k"))).isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> limiter.named("api").reset("k")).isInstanceOf(StoreUnavailableException.class);
  }

  @Test
  void local_decidesOnAnInMemoryStoreUntilTheStoreAnswers() {
    RateLimiter limiter = limiter(FailurePolicy.LOCAL, "api", "token-bucket rate=3 period=365d");
    limiter.named("api").limit("k", 3);
    store.switchOff();
    assertThat(limiter.named("api").limit("k", 2).allowed()).as("local state starts full").isTrue();
    assertThat(limiter.named("api").limit("k", 2).allowed()).as("and counts").isFalse();
    assertThat(limiter.limitAll(limiter.named("api").call("k", 1)).allowed()).isTrue();
    store.switchOn();
    clock.advance(Duration.ofSeconds(1));
    assertThat(limiter.named("api").check("k", 1).allowed()).as("back on the store").isFalse();
  }

  @Test
  void perLimitPolicy_overridesTheLimitersDefault() {
    RateLimiter limiter = limiter(FailurePolicy.CLOSED, "open", "10/1m failure=open", "closed", "10/1m");
    store.switchOff();
    assertThat(limiter.named("open").limit("k", 1).allowed()).isTrue();
    assertThatThrownBy(() -> limiter.named("closed").limit("k", 1)).isInstanceOf(StoreUnavailableException.class);
  }

  @Test
  void downStore_isProbedByOneRequestPerRetryInterval_notEveryRequest() {
    RateLimiter limiter = limiter(FailurePolicy.OPEN, "api", "10/1m");
    store.switchOff();
    limiter.named("api").limit("k", 1);
    int afterFailure = store.calls();
    for (int i = 0; i < 100; i++) {
      limiter.named("api").limit("k", 1);
    }
    assertThat(store.calls()).as("no call waits on a store known to be down").isEqualTo(afterFailure);
    clock.advance(Duration.ofSeconds(1));
    limiter.named("api").limit("k", 1);
    limiter.named("api").limit("k", 1);
    assertThat(store.calls()).as("one probe per interval").isEqualTo(afterFailure + 1);
  }

  @Test
  void asyncForms_followThePolicyToo() throws Exception {
    RateLimiter limiter = limiter(FailurePolicy.LOCAL, "api", "token-bucket rate=2 period=365d", "strict",
        "token-bucket rate=2 period=365d failure=closed");
    store.switchOff();
    assertThat(limiter.named("api").limitAsync("k", 2).toCompletableFuture().get().allowed()).isTrue();
    assertThat(limiter.limitAllAsync(List.of(limiter.named("api").call("k"))).toCompletableFuture().get().allowed())
        .isFalse();
    CompletionStage<Decision> strict = limiter.named("strict").limitAsync("k", 1);
    assertThatThrownBy(() -> strict.toCompletableFuture().get()).isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(StoreUnavailableException.class);
  }

  @Test
  void shardedLimit_followsThePolicy() {
    RateLimiter limiter = limiter(FailurePolicy.LOCAL, "hot", "token-bucket rate=40 period=365d shards=4");
    store.switchOff();
    int admitted = 0;
    for (int i = 0; i < 200; i++) {
      admitted += limiter.named("hot").limit("k", 1).allowed() ? 1 : 0;
    }
    assertThat(admitted).isEqualTo(40);
  }
}

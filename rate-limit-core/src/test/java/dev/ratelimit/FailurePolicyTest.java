package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.store.InMemoryStore;
import dev.ratelimit.store.KeySpace;
import dev.ratelimit.store.Operation;
import dev.ratelimit.store.RateLimitStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** docs/design.md §4: while a store can't decide, each limit follows its failure policy. */
class FailurePolicyTest {
  private final ManualClock clock = new ManualClock(1_767_225_600_000L);
  private final SwitchableStore store = new SwitchableStore(new InMemoryStore(clock));

  /** A store that can be switched off: it then throws, as a remote store does when it is down. */
  static final class SwitchableStore implements RateLimitStore {
    private final RateLimitStore inner;
    volatile boolean down;
    final AtomicInteger calls = new AtomicInteger();

    SwitchableStore(RateLimitStore inner) {
      this.inner = inner;
    }

    private void call() {
      calls.incrementAndGet();
      if (down) {
        throw new StoreUnavailableException("switched off", null);
      }
    }

    @Override
    public KeySpace bind(String name, Limit limit) {
      KeySpace space = inner.bind(name, limit);
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
        public Decision apply(String key, Operation op, double count, long maxWait) {
          call();
          return space.apply(key, op, count, maxWait);
        }

        @Override
        public void reset(String key) {
          call();
          space.reset(key);
        }

        @Override
        public Decision refund(String key, double count) {
          call();
          return space.refund(key, count);
        }
      };
    }
  }

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
    limiter.limit("api", "k", 2);
    store.down = true;
    for (int i = 0; i < 5; i++) {
      assertThat(limiter.limit("api", "k", 1).allowed()).isTrue();
    }
    assertThat(limiter.storeAvailable()).isFalse();
    store.down = false;
    clock.advance(Duration.ofSeconds(1));
    assertThat(limiter.limit("api", "k", 1).allowed()).as("the store's state again").isFalse();
    assertThat(limiter.storeAvailable()).isTrue();
  }

  @Test
  void closed_passesTheFailureOn() {
    RateLimiter limiter = limiter(FailurePolicy.CLOSED, "api", "10/1m");
    store.down = true;
    assertThatThrownBy(() -> limiter.limit("api", "k", 1)).isInstanceOf(StoreUnavailableException.class)
        .hasMessage("switched off");
    assertThatThrownBy(() -> limiter.limitAll(LimitCall.of("api", "k"))).isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> limiter.reset("api", "k")).isInstanceOf(StoreUnavailableException.class);
  }

  @Test
  void local_decidesOnAnInMemoryStoreUntilTheStoreAnswers() {
    RateLimiter limiter = limiter(FailurePolicy.LOCAL, "api", "token-bucket rate=3 period=365d");
    limiter.limit("api", "k", 3);
    store.down = true;
    assertThat(limiter.limit("api", "k", 2).allowed()).as("local state starts full").isTrue();
    assertThat(limiter.limit("api", "k", 2).allowed()).as("and counts").isFalse();
    assertThat(limiter.limitAll(LimitCall.of("api", "k", 1)).allowed()).isTrue();
    store.down = false;
    clock.advance(Duration.ofSeconds(1));
    assertThat(limiter.check("api", "k", 1).allowed()).as("back on the store").isFalse();
  }

  @Test
  void perLimitPolicy_overridesTheLimitersDefault() {
    RateLimiter limiter = limiter(FailurePolicy.CLOSED, "open", "10/1m failure=open", "closed", "10/1m");
    store.down = true;
    assertThat(limiter.limit("open", "k", 1).allowed()).isTrue();
    assertThatThrownBy(() -> limiter.limit("closed", "k", 1)).isInstanceOf(StoreUnavailableException.class);
  }

  @Test
  void downStore_isProbedByOneRequestPerRetryInterval_notEveryRequest() {
    RateLimiter limiter = limiter(FailurePolicy.OPEN, "api", "10/1m");
    store.down = true;
    limiter.limit("api", "k", 1);
    int afterFailure = store.calls.get();
    for (int i = 0; i < 100; i++) {
      limiter.limit("api", "k", 1);
    }
    assertThat(store.calls.get()).as("no call waits on a store known to be down").isEqualTo(afterFailure);
    clock.advance(Duration.ofSeconds(1));
    limiter.limit("api", "k", 1);
    limiter.limit("api", "k", 1);
    assertThat(store.calls.get()).as("one probe per interval").isEqualTo(afterFailure + 1);
  }

  @Test
  void asyncForms_followThePolicyToo() throws Exception {
    RateLimiter limiter = limiter(FailurePolicy.LOCAL, "api", "token-bucket rate=2 period=365d", "strict",
        "token-bucket rate=2 period=365d failure=closed");
    store.down = true;
    assertThat(limiter.limitAsync("api", "k", 2).toCompletableFuture().get().allowed()).isTrue();
    assertThat(limiter.limitAllAsync(List.of(LimitCall.of("api", "k"))).toCompletableFuture().get().allowed())
        .isFalse();
    CompletionStage<Decision> strict = limiter.limitAsync("strict", "k", 1);
    assertThatThrownBy(() -> strict.toCompletableFuture().get()).isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(StoreUnavailableException.class);
  }

  @Test
  void shardedLimit_followsThePolicy() {
    RateLimiter limiter = limiter(FailurePolicy.LOCAL, "hot", "token-bucket rate=40 period=365d shards=4");
    store.down = true;
    int admitted = 0;
    for (int i = 0; i < 200; i++) {
      admitted += limiter.limit("hot", "k", 1).allowed() ? 1 : 0;
    }
    assertThat(admitted).isEqualTo(40);
  }
}

package dev.ratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.Decision;
import dev.ratelimit.DecisionListener;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.contract.SwitchableStore;
import dev.ratelimit.store.InMemoryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Every decision reaches the listener once, with what decided it: the store or a failure policy. */
class DecisionListenerTest {
  private final ManualClock clock = new ManualClock(1_767_225_600_000L);
  private final Recorder recorder = new Recorder();

  /** What the listener heard, in order. */
  record Heard(String limit, boolean allowed, double remaining, FailurePolicy fallback) {}

  static final class Recorder implements DecisionListener {
    final List<Heard> heard = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void onDecision(String limit, Decision decision, FailurePolicy fallback) {
      heard.add(new Heard(limit, decision.allowed(), decision.remaining(), fallback));
    }

    long count(String limit, boolean allowed, FailurePolicy fallback) {
      synchronized (heard) {
        return heard.stream().filter(h -> h.limit().equals(limit) && h.allowed() == allowed && h.fallback() == fallback)
            .count();
      }
    }
  }

  private RateLimiter.Builder builder() {
    return RateLimiter.builder().clock(clock).listener(recorder);
  }

  @Test
  void listener_hearsEachDecisionOnce_withItsOutcome() {
    RateLimiter limiter = builder().limit("api", "fixed-window rate=3 period=1m").build();

    for (int i = 0; i < 5; i++) {
      limiter.named("api").limit("u1");
    }
    limiter.named("api").check("u1", 1);
    clock.advance(Duration.ofMinutes(1));
    limiter.named("api").reserve("u1", 1);

    assertThat(recorder.count("api", true, null)).isEqualTo(4); // 3 limits, 1 reserve
    assertThat(recorder.count("api", false, null)).isEqualTo(3); // 2 limits, 1 check
    assertThat(recorder.heard).hasSize(7);
    assertThat(recorder.heard.get(0)).isEqualTo(new Heard("api", true, 2, null));
  }

  @Test
  void listener_hearsAsyncDecisionsAndAdHocLimitsUnderTheirSpec() throws Exception {
    RateLimiter limiter = builder().limit("api", "token-bucket rate=1 period=1s").build();

    limiter.named("api").limitAsync("k", 1).toCompletableFuture().get();
    limiter.named("api").checkAsync("k", 1).toCompletableFuture().get();
    limiter.limit(Limit.parse("gcra rate=2 period=1s"), "k", 1);

    assertThat(recorder.heard).containsExactly(new Heard("api", true, 0, null), new Heard("api", false, 0, null),
        new Heard("gcra rate=2 period=1s", true, 1, null));
  }

  @Test
  void refundsAndResets_areNotDecisions() {
    RateLimiter limiter = builder().limit("api", "token-bucket rate=5 period=1s").build();

    limiter.named("api").limit("k", 2);
    limiter.named("api").refund("k", 1);
    limiter.named("api").reset("k");

    assertThat(recorder.heard).hasSize(1);
  }

  @Test
  void acquire_reportsEachAttempt() throws Exception {
    RateLimiter limiter = builder().limit("slow", "sliding-log rate=1 period=1s").build();
    limiter.named("slow").limit("k");

    Decision decision = limiter.named("slow").acquire("k", 1, Duration.ofSeconds(2));

    assertThat(decision.allowed()).isTrue();
    // the first limit, then a denial, then the admission after ManualClock's sleep
    assertThat(recorder.heard).extracting(Heard::allowed).containsExactly(true, false, true);
  }

  @Test
  void limitAll_reportsOncePerCall() {
    RateLimiter limiter = builder().limit("a", "token-bucket rate=2 period=1m")
        .limit("b", "token-bucket rate=1 period=1m").build();

    limiter.limitAll(limiter.named("a").call("k"), limiter.named("b").call("k"));
    limiter.limitAll(limiter.named("a").call("k"), limiter.named("b").call("k"));

    assertThat(recorder.heard).containsExactly(new Heard("a", true, 1, null), new Heard("b", true, 0, null),
        new Heard("a", true, 1, null), new Heard("b", false, 0, null));
  }

  @Test
  void limitAllAsync_reportsOncePerCall() throws Exception {
    RateLimiter limiter = builder().limit("a", "token-bucket rate=2 period=1m")
        .limit("b", "token-bucket rate=1 period=1m").build();

    limiter.limitAllAsync(List.of(limiter.named("a").call("k"), limiter.named("b").call("k"))).toCompletableFuture().get();

    assertThat(recorder.heard).containsExactly(new Heard("a", true, 1, null), new Heard("b", true, 0, null));
  }

  @Test
  void shardedRequest_isReportedOnce_evenWhenSplitOverTwoShards() {
    RateLimiter limiter = builder().limit("hot", "token-bucket rate=8 period=1m shards=4").build();

    // each shard holds 2: a count of 3 always takes from two shards
    Decision decision = limiter.named("hot").limit("k", 3);
    limiter.named("hot").check("k", 1);

    assertThat(decision.allowed()).isTrue();
    assertThat(recorder.heard).hasSize(2);
    assertThat(recorder.heard.get(0).allowed()).isTrue();
  }

  @Test
  void fallbackDecisions_carryThePolicyThatMadeThem() {
    SwitchableStore store = new SwitchableStore(new InMemoryStore(clock));
    RateLimiter limiter = builder().store(store).storeFailure(FailurePolicy.LOCAL)
        .limit("local", "token-bucket rate=1 period=1m")
        .limit("open", "token-bucket rate=1 period=1m failure=open")
        .limit("closed", "token-bucket rate=1 period=1m failure=closed").build();

    limiter.named("local").limit("k");
    store.switchOff();
    limiter.named("local").limit("k"); // the local store's own state: fresh
    limiter.named("local").limit("k");
    limiter.named("open").limit("k");
    assertThatThrownBy(() -> limiter.named("closed").limit("k")).isInstanceOf(StoreUnavailableException.class);

    // the local fallback store reads the system clock (a remote store's own time is gone), so
    // the denial's remaining is what refilled in the milliseconds between the two calls
    Heard denial = recorder.heard.get(2);
    assertThat(denial.remaining()).isBetween(0.0, 0.01);
    assertThat(recorder.heard).containsExactly(new Heard("local", true, 0, null),
        new Heard("local", true, 0, FailurePolicy.LOCAL), new Heard("local", false, denial.remaining(), FailurePolicy.LOCAL),
        new Heard("open", true, 1, FailurePolicy.OPEN));
  }

  @Test
  void fallbackDecisions_ofAsyncShardedAndAllOrNothingCalls_carryThePolicy() throws Exception {
    SwitchableStore store = new SwitchableStore(new InMemoryStore(clock));
    RateLimiter limiter = builder().store(store).storeFailure(FailurePolicy.OPEN)
        .limit("a", "token-bucket rate=2 period=1m")
        .limit("b", "token-bucket rate=2 period=1m failure=local")
        .limit("hot", "token-bucket rate=8 period=1m shards=4 failure=local").build();
    store.switchOff();

    limiter.named("a").limitAsync("k", 1).toCompletableFuture().get();
    limiter.limitAll(limiter.named("a").call("k"), limiter.named("b").call("k"));
    limiter.named("hot").limit("k", 3);

    assertThat(recorder.heard).containsExactly(new Heard("a", true, 2, FailurePolicy.OPEN),
        new Heard("a", true, 2, FailurePolicy.OPEN), new Heard("b", true, 1, FailurePolicy.LOCAL),
        new Heard(recorder.heard.get(3).limit(), true, recorder.heard.get(3).remaining(), FailurePolicy.LOCAL));
    assertThat(recorder.heard.get(3).limit()).isEqualTo("hot");
  }

  @Test
  void aThrowingListener_changesNoDecision() {
    RateLimiter limiter = RateLimiter.builder().clock(clock).limit("api", "token-bucket rate=1 period=1m")
        .listener((limit, decision, fallback) -> {
          throw new IllegalStateException("broken metrics");
        }).build();

    assertThat(limiter.named("api").limit("k").allowed()).isTrue();
    assertThat(limiter.named("api").limit("k").allowed()).isFalse();
    assertThat(limiter.limitAll(limiter.named("api").call("other")).allowed()).isTrue();
  }

  @Test
  void refusedCalls_areNotReported() {
    RateLimiter limiter = builder().limit("api", "token-bucket rate=1 period=1m").build();

    assertThatThrownBy(() -> limiter.named("api").limit("k", 5)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> limiter.named("nope").limit("k", 1)).isInstanceOf(IllegalArgumentException.class);

    assertThat(recorder.heard).isEmpty();
  }

  @Test
  void concurrentDecisions_areEachReportedOnce() throws Exception {
    RateLimiter limiter = builder().limit("api", "token-bucket rate=1000 period=1h").build();
    int threads = 8;
    int perThread = 500;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Integer>> admitted = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      admitted.add(pool.submit(() -> {
        start.await();
        int n = 0;
        for (int i = 0; i < perThread; i++) {
          n += limiter.named("api").limit("k").allowed() ? 1 : 0;
        }
        return n;
      }));
    }
    start.countDown();
    int total = 0;
    for (Future<Integer> f : admitted) {
      total += f.get();
    }
    pool.shutdown();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();

    assertThat(total).isEqualTo(1000);
    assertThat(recorder.count("api", true, null)).isEqualTo(1000);
    assertThat(recorder.count("api", false, null)).isEqualTo(threads * perThread - 1000);
  }
}

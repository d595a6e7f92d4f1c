package dev.ratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ratelimit.Decision;
import dev.ratelimit.DecisionListener;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.SwitchableStore;
import dev.ratelimit.store.InMemoryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Where and how a listener is called: asynchronous decisions a store completes on its own thread
 * are heard on the limiter's listener thread, before their stage completes, never on the store's
 * thread; a slow listener never holds that thread; waiting decisions stay bounded, every one heard
 * exactly once; a failing listener is logged at most once a minute, per listener.
 */
class ListenerCallsTest {
  private final ManualClock clock = new ManualClock(1_767_225_600_000L);
  /** The store's own thread, as a remote store's I/O thread: it completes every asynchronous call. */
  private final ExecutorService storeThread = Executors.newSingleThreadExecutor(task -> new Thread(task, "store-io"));
  @AfterEach
  void stop() {
    storeThread.shutdownNow();
  }

  private RateLimiter limiter(DecisionListener listener) {
    return RateLimiter.builder().clock(clock).store(new SwitchableStore(new InMemoryStore(clock), storeThread))
        .storeFailure(FailurePolicy.CLOSED).limit("api", "token-bucket rate=1000000 period=1h")
        .limit("other", "token-bucket rate=1000000 period=1h").listener(listener).build();
  }

  /**
   * Holds the store's thread until the latch is counted down: what is asked meanwhile is answered
   * later, on that thread (never already decided when the caller's call returns).
   */
  private CountDownLatch holdStore() {
    CountDownLatch hold = new CountDownLatch(1);
    storeThread.submit(() -> await(hold));
    return hold;
  }

  /** Waits until the store's thread has done everything given to it so far. */
  private void storeThreadDone() throws Exception {
    storeThread.submit(() -> {}).get(10, TimeUnit.SECONDS);
  }

  @Test
  void asyncDecisions_completedOnTheStoresThread_areHeardOnListenerThreads_beforeTheirStageCompletes()
      throws Exception {
    Map<Decision, String> heardOn = Collections.synchronizedMap(new IdentityHashMap<>());
    try (RateLimiter limiter = limiter((limit, decision, fallback) ->
        heardOn.put(decision, Thread.currentThread().getName()))) {
      List<CompletableFuture<Boolean>> heardFirst = new ArrayList<>();
      CountDownLatch hold = holdStore();
      for (int i = 0; i < 200; i++) {
        heardFirst.add(limiter.named("api").limitAsync("k" + (i % 7), 1).toCompletableFuture()
            .thenApply(heardOn::containsKey));
        heardFirst.add(limiter.limitAllAsync(List.of(limiter.named("api").call("a"), limiter.named("other").call("b")))
            .toCompletableFuture().thenApply(all -> all.decisions().stream().allMatch(heardOn::containsKey)));
        heardFirst.add(limiter.named("other").chargeAsync("c" + (i % 5), 1).toCompletableFuture()
            .thenApply(charge -> heardOn.containsKey(charge.decision())));
      }
      hold.countDown();
      for (CompletableFuture<Boolean> stage : heardFirst) {
        assertThat(stage.get(10, TimeUnit.SECONDS)).as("heard before the caller's stage completed").isTrue();
      }
      assertThat(heardOn).hasSize(200 + 2 * 200 + 200);
      assertThat(Set.copyOf(heardOn.values())).containsExactly("ratelimit-listener");
    }
  }

  @Test
  void asyncStageCancelledByItsCaller_theStoresDecisionIsStillHeard() throws Exception {
    AtomicInteger heard = new AtomicInteger();
    try (RateLimiter limiter = limiter((limit, decision, fallback) -> heard.incrementAndGet())) {
      CountDownLatch hold = holdStore();
      List<CompletableFuture<Decision>> cancelled = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        CompletableFuture<Decision> stage = limiter.named("api").limitAsync("k", 1).toCompletableFuture();
        assertThat(stage.cancel(true)).isTrue(); // the client went away before Redis answered
        cancelled.add(stage);
      }
      CompletableFuture<Decision> last = limiter.named("api").limitAsync("k", 1).toCompletableFuture();
      hold.countDown();
      // the listener thread tells in order: once the last stage completes, the others were told
      assertThat(last.get(10, TimeUnit.SECONDS).remaining()).as("the store took every unit")
          .isCloseTo(1_000_000 - 11, within(1e-3));
      assertThat(heard.get()).as("and the listener heard each of those decisions").isEqualTo(11);
      assertThat(cancelled).allMatch(CompletableFuture::isCancelled);
    }
  }

  @Test
  void syncAndAlreadyDecidedAsyncDecisions_areHeardOnTheCallersThread() throws Exception {
    Map<Decision, String> heardOn = Collections.synchronizedMap(new IdentityHashMap<>());
    DecisionListener listener = (limit, decision, fallback) -> heardOn.put(decision, Thread.currentThread().getName());
    try (RateLimiter limiter = limiter(listener);
        RateLimiter inMemory = RateLimiter.builder().clock(clock).limit("api", "10/1s").listener(listener).build()) {
      Decision sync = limiter.named("api").limit("k", 1);
      Decision decided = inMemory.named("api").limitAsync("k", 1).toCompletableFuture().get(10, TimeUnit.SECONDS);
      String caller = Thread.currentThread().getName();
      assertThat(heardOn).containsEntry(sync, caller).containsEntry(decided, caller);
    }
  }

  @Test
  void slowListener_neverHoldsTheStoresThread_andEveryDecisionIsHeardOnce() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger heard = new AtomicInteger();
    try (RateLimiter limiter = limiter((limit, decision, fallback) -> {
      heard.incrementAndGet();
      if (Thread.currentThread().getName().equals("ratelimit-listener")) {
        await(release); // as slow as can be: until the test lets it go
      }
    })) {
      List<CompletableFuture<Decision>> async = new ArrayList<>();
      CountDownLatch hold = holdStore();
      for (int i = 0; i < 100; i++) {
        async.add(limiter.named("api").limitAsync("k", 1).toCompletableFuture());
      }
      hold.countDown();
      storeThreadDone(); // the store answered every one, its thread free again
      assertThat(async).noneMatch(CompletableFuture::isDone);
      // the store's thread still answers: a synchronous decision, and more asynchronous ones
      assertThat(limiter.named("api").limit("k", 1).remaining()).isCloseTo(1_000_000 - 101, within(1e-3));
      CountDownLatch again = holdStore();
      async.add(limiter.named("api").limitAsync("k", 1).toCompletableFuture());
      again.countDown();
      storeThreadDone();
      assertThat(limiter.storeAvailable()).isTrue();

      release.countDown();
      for (CompletableFuture<Decision> stage : async) {
        assertThat(stage.get(10, TimeUnit.SECONDS).allowed()).isTrue();
      }
      assertThat(heard.get()).isEqualTo(102);
    }
  }

  @Test
  void waitingDecisions_areBounded_callersHelpPastTheBound_everyOneHeardOnce() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger heard = new AtomicInteger();
    Map<String, AtomicInteger> byThread = new ConcurrentHashMap<>();
    try (RateLimiter limiter = limiter((limit, decision, fallback) -> {
      heard.incrementAndGet();
      String thread = Thread.currentThread().getName();
      byThread.computeIfAbsent(thread, t -> new AtomicInteger()).incrementAndGet();
      if (thread.equals("ratelimit-listener")) {
        await(release);
      }
    })) {
      ListenerCalls calls = limiter.listenerCalls();
      int decisions = ListenerCalls.MAX_QUEUED + 1_000;
      List<CompletableFuture<Decision>> async = new ArrayList<>(decisions);
      int mostQueued = 0;
      for (int i = 0; i < decisions; i++) {
        CountDownLatch hold = holdStore();
        async.add(limiter.named("api").limitAsync("k", 1).toCompletableFuture());
        hold.countDown();
        storeThreadDone(); // decided: now waiting for the listener
        mostQueued = Math.max(mostQueued, calls.queued());
      }
      assertThat(mostQueued).as("decisions waiting for the listener at most").isEqualTo(ListenerCalls.MAX_QUEUED);
      String caller = Thread.currentThread().getName();
      assertThat(byThread.get(caller)).as("told on the caller's thread past the bound").isNotNull();
      assertThat(byThread.get(caller).get()).isGreaterThan(900);

      release.countDown();
      for (CompletableFuture<Decision> stage : async) {
        assertThat(stage.get(30, TimeUnit.SECONDS).allowed()).isTrue();
      }
      assertThat(heard.get()).as("every decision heard, once").isEqualTo(decisions);
      assertThat(limiter.named("api").check("k", 0).remaining()).isCloseTo(1_000_000 - decisions, within(1e-3));
    }
  }

  @Test
  void failingListener_isLoggedAtMostOnceAMinute_perListener() {
    DecisionListener broken = (limit, decision, fallback) -> {
      throw new IllegalStateException("broken metrics");
    };
    DecisionListener alsoBroken = (limit, decision, fallback) -> {
      throw new AssertionError("also broken");
    };
    try (RateLimiter one = RateLimiter.builder().clock(clock).limit("api", "1000/1s").listener(broken).build();
        RateLimiter two = RateLimiter.builder().clock(clock).limit("api", "1000/1s").listener(alsoBroken).build()) {
      ListenerFailures first = one.listenerCalls().failures();
      ListenerFailures second = two.listenerCalls().failures();
      for (int i = 0; i < 100; i++) {
        assertThat(one.named("api").limit("k").allowed()).isTrue();
        assertThat(two.named("api").limit("k").allowed()).isTrue();
      }
      assertThat(first.lines()).as("one line per listener").isEqualTo(1);
      assertThat(second.lines()).as("one line per listener").isEqualTo(1);

      clock.advance(Duration.ofSeconds(59));
      for (int i = 0; i < 10; i++) {
        one.named("api").limit("k");
        two.named("api").limit("k");
      }
      assertThat(first.lines()).as("within the minute").isEqualTo(1);

      clock.advance(Duration.ofSeconds(1));
      one.named("api").limit("k");
      two.named("api").limit("k");
      assertThat(first.lines()).as("a minute later, once more each").isEqualTo(2);
      assertThat(second.lines()).isEqualTo(2);
    }
  }

  @Test
  void failures_loggedOnceAMinute_countTheIgnoredOnes() {
    ListenerFailures failures = new ListenerFailures(clock);
    assertThat(failures.ignored(new IllegalStateException("first"))).isTrue();
    for (int i = 0; i < 1000; i++) {
      assertThat(failures.ignored(new IllegalStateException("again"))).isFalse();
    }
    clock.advance(Duration.ofMillis(ListenerFailures.EVERY_MILLIS - 1));
    assertThat(failures.ignored(new OutOfMemoryError("by the listener"))).isFalse();
    clock.advance(Duration.ofMillis(1));
    assertThat(failures.ignored(new StackOverflowError())).isTrue();
    assertThat(failures.lines()).isEqualTo(2);
  }

  @Test
  void listenerInterruptedWhileItRuns_theDecisionStands_andTheInterruptIsKept() {
    try (RateLimiter limiter = RateLimiter.builder().clock(clock).limit("api", "5/1h").listener(
        (limit, decision, fallback) -> {
          Thread.currentThread().interrupt();
          try {
            Thread.sleep(10_000); // interrupted at once: throws
          } catch (InterruptedException e) {
            ListenerCallsTest.<RuntimeException>sneaky(e); // as code that doesn't declare it may
          }
        }).build()) {
      assertThat(limiter.named("api").limit("k", 2).remaining()).isEqualTo(3);
      assertThat(Thread.interrupted()).as("the interrupt is back on the caller's thread").isTrue();
      assertThat(limiter.named("api").check("k", 0).remaining()).isEqualTo(3);
      Thread.interrupted();
    }
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> void sneaky(Throwable failure) throws T {
    throw (T) failure;
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.limiter.RateLimiter;
import io.lettuce.core.ClientOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Coalescing under concurrency, on a real server: many threads' requests on many keys share a
 * limit's lanes and calls, and still every key's requests are decided in the order they came,
 * each exactly once (exact counts, no timing), whatever keys end up in one call together.
 */
class CoalescingIT {
  private static RedisServer server;
  private static RedisStore store;

  @BeforeAll
  static void startRedis() {
    server = RedisServer.start();
    store = RedisStore.builder().uri(server.uri()).commandTimeout(Duration.ofSeconds(5)).maxPending(100_000).build();
  }

  @AfterAll
  static void stopRedis() {
    if (store != null) {
      store.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private static RateLimiter limiter(String name, String spec) {
    return RateLimiter.builder().store(store).storeFailure(FailurePolicy.CLOSED).limit(name, spec).build();
  }

  private static long scriptCalls() {
    return server.calls("fcall") + server.calls("evalsha") + server.calls("eval");
  }

  /**
   * Each thread owns its keys and sends its requests on them without waiting, so each key's
   * order is its thread's program order; the threads' requests interleave in the lanes and
   * calls. The nth request on a key must see exactly 59 - n remaining, and none past the 60th
   * is admitted.
   */
  @Test
  void asyncCallersOnManyThreads_eachKeysRequestsAreDecidedInTheOrderTheyCame() throws Exception {
    RateLimiter limiter = limiter("ordered", "token-bucket rate=60 period=365d");
    int threads = 6;
    int keysPerThread = 9;
    int perKey = 80;
    long before = scriptCalls();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Map<String, List<CompletableFuture<Decision>>>>> sent = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        sent.add(pool.submit(() -> {
          Map<String, List<CompletableFuture<Decision>>> byKey = new TreeMap<>();
          start.await();
          for (int n = 0; n < perKey; n++) {
            for (int k = 0; k < keysPerThread; k++) {
              String key = "t" + thread + "-k" + k;
              byKey.computeIfAbsent(key, x -> new ArrayList<>())
                  .add(limiter.named("ordered").limitAsync(key, 1).toCompletableFuture());
            }
          }
          return byKey;
        }));
      }
      start.countDown();
      int decided = 0;
      for (Future<Map<String, List<CompletableFuture<Decision>>>> thread : sent) {
        for (Map.Entry<String, List<CompletableFuture<Decision>>> key : thread.get(30, TimeUnit.SECONDS).entrySet()) {
          List<CompletableFuture<Decision>> decisions = key.getValue();
          assertThat(decisions).hasSize(perKey);
          for (int n = 0; n < perKey; n++) {
            Decision decision = decisions.get(n).get(30, TimeUnit.SECONDS);
            assertThat(decision.allowed()).as("%s, request %d", key.getKey(), n).isEqualTo(n < 60);
            if (n < 60) {
              assertThat(decision.remaining()).as("%s, request %d, in order", key.getKey(), n)
                  .isCloseTo(59 - n, within(1e-3));
            }
            decided++;
          }
        }
      }
      assertThat(decided).isEqualTo(threads * keysPerThread * perKey);
      assertThat(scriptCalls() - before).as("script calls for %d requests", decided).isLessThan(decided);
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Synchronous callers racing on shared keys: each key admits exactly its capacity, and the
   * admitted requests see every remaining value from capacity - 1 down to 0 exactly once (a
   * request decided twice, or two decided on one state, would repeat one).
   */
  @Test
  void syncCallersRacingOnSharedKeys_admitExactlyTheCapacity_eachStateSeenOnce() throws Exception {
    RateLimiter limiter = limiter("shared", "token-bucket rate=300 period=365d");
    int threads = 8;
    int perThread = 150;
    String[] keys = {"a", "b", "ключ-日本"};
    Map<String, ConcurrentLinkedQueue<Double>> admitted = new ConcurrentHashMap<>();
    Map<String, ConcurrentLinkedQueue<Double>> denied = new ConcurrentHashMap<>();
    for (String key : keys) {
      admitted.put(key, new ConcurrentLinkedQueue<>());
      denied.put(key, new ConcurrentLinkedQueue<>());
    }
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        done.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < perThread; i++) {
            String key = keys[(i + thread) % keys.length];
            Decision decision = limiter.named("shared").limit(key, 1);
            (decision.allowed() ? admitted : denied).get(key).add(decision.remaining());
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> thread : done) {
        thread.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    for (String key : keys) {
      // 8 threads x 150 requests over 3 keys: 400 requests per key
      assertThat(admitted.get(key)).as("admitted on %s", key).hasSize(300);
      assertThat(denied.get(key)).as("denied on %s", key).hasSize(100);
      List<Long> seen = admitted.get(key).stream().map(Math::round).sorted().toList();
      assertThat(seen).as("remaining after each admission on %s", key)
          .isEqualTo(LongStream.range(0, 300).boxed().toList());
    }
    assertThat(server.call("EXISTS", "ratelimit:{shared:ключ-日本}")).as("stored under its UTF-8 name").isEqualTo(1L);
  }

  /**
   * A lane keeps two script calls in flight while the first holds only requests whose threads
   * wait for them (ScriptBatcher.Lane.mayStart): Redis paused (CLIENT PAUSE), a second thread's
   * request is sent at once, not held behind the first. Script calls sent are counted by
   * Lettuce's own command listener, as they are dispatched.
   */
  @Test
  void secondSynchronousRequest_isSentWhileTheFirstIsInFlight() throws Exception {
    whilePaused("pipe", (limiter, dispatched, before, pool) -> {
      Future<Decision> first = pool.submit(() -> limiter.named("pipe").limit("a", 1));
      await().atMost(Duration.ofSeconds(10)).until(() -> dispatched.scriptCalls.get() == before + 1);
      Future<Decision> second = pool.submit(() -> limiter.named("pipe").limit("b", 1));
      await().atMost(Duration.ofSeconds(10)).until(() -> dispatched.scriptCalls.get() == before + 2);
      assertThat(first.isDone()).as("Redis paused: the first call is still in flight").isFalse();
      server.call("CLIENT", "UNPAUSE");
      assertThat(first.get(10, TimeUnit.SECONDS).remaining()).isCloseTo(9, within(1e-3));
      assertThat(second.get(10, TimeUnit.SECONDS).remaining()).isCloseTo(9, within(1e-3));
    });
  }

  /**
   * A second call never holds a key the call in flight holds: a hot key's requests wait and go
   * together in the next call (one read and one write of the key for all of them), rather than
   * each in a call of its own beside the first.
   */
  @Test
  void secondRequestOnTheKeyInFlight_waitsForItsCall() throws Exception {
    whilePaused("same", (limiter, dispatched, before, pool) -> {
      Future<Decision> first = pool.submit(() -> limiter.named("same").limit("k", 1));
      await().atMost(Duration.ofSeconds(10)).until(() -> dispatched.scriptCalls.get() == before + 1);
      Queue<Thread> threads = new ConcurrentLinkedQueue<>();
      List<Future<Decision>> later = List.of(submitNoted(pool, threads, () -> limiter.named("same").limit("k", 1)),
          submitNoted(pool, threads, () -> limiter.named("same").limit("k", 1)));
      await().atMost(Duration.ofSeconds(10)).until(() -> parked(threads, 2) && dispatched.store.backlog().pending() == 3);
      assertThat(dispatched.scriptCalls.get()).as("held behind the call on their key").isEqualTo(before + 1);
      server.call("CLIENT", "UNPAUSE");
      assertThat(first.get(10, TimeUnit.SECONDS).remaining()).isCloseTo(9, within(1e-3));
      List<Long> remaining = new ArrayList<>();
      for (Future<Decision> decision : later) {
        remaining.add(Math.round(decision.get(10, TimeUnit.SECONDS).remaining()));
      }
      assertThat(remaining).containsExactlyInAnyOrder(7L, 8L);
      assertThat(dispatched.scriptCalls.get()).as("the two held ones in one call").isEqualTo(before + 2);
    });
  }

  /**
   * While a call in flight holds a request no thread waits for, the lane starts no second one:
   * that thread may send more on the key, and two calls in flight may reach Redis in either order
   * (a call sent again after Redis lost the script, a write from Lettuce's event loop). So a
   * thread's asynchronous request and its next one, synchronous, are decided in that order.
   */
  @Test
  void requestAfterAnAsynchronousOne_waitsForItsCall() throws Exception {
    whilePaused("after", (limiter, dispatched, before, pool) -> {
      CompletableFuture<Decision> first = limiter.named("after").limitAsync("k", 1).toCompletableFuture();
      assertThat(dispatched.scriptCalls.get()).as("sent as it was taken on").isEqualTo(before + 1);
      CompletableFuture<Decision> second = limiter.named("after").limitAsync("k", 1).toCompletableFuture();
      Queue<Thread> threads = new ConcurrentLinkedQueue<>();
      Future<Decision> third = submitNoted(pool, threads, () -> limiter.named("after").limit("k", 1));
      await().atMost(Duration.ofSeconds(10)).until(() -> parked(threads, 1) && dispatched.store.backlog().pending() == 3);
      assertThat(dispatched.scriptCalls.get()).as("held behind the asynchronous call").isEqualTo(before + 1);
      server.call("CLIENT", "UNPAUSE");
      assertThat(first.get(10, TimeUnit.SECONDS).remaining()).isCloseTo(9, within(1e-3));
      assertThat(second.get(10, TimeUnit.SECONDS).remaining()).isCloseTo(8, within(1e-3));
      assertThat(third.get(10, TimeUnit.SECONDS).remaining()).isCloseTo(7, within(1e-3));
      assertThat(dispatched.scriptCalls.get()).as("the two held ones in one call").isEqualTo(before + 2);
    });
  }

  /** A test's steps with Redis paused for writes: its limiter, store, script calls sent before, threads. */
  private interface WhilePaused {
    void run(RateLimiter limiter, Dispatched dispatched, int before, ExecutorService pool) throws Exception;
  }

  /**
   * Runs {@code test} on a token bucket of 10 of a store of its own, its script loaded (so that no
   * call is sent twice), while Redis runs no write (CLIENT PAUSE ... WRITE: calls sent stay in
   * flight), and lets Redis go on after.
   */
  private static void whilePaused(String name, WhilePaused test) throws Exception {
    try (Dispatched dispatched = new Dispatched(server.uri(), Duration.ofSeconds(30), ClientOptions.create())) {
      RateLimiter limiter = dispatched.limiter(name, "token-bucket rate=10 period=365d", FailurePolicy.CLOSED);
      assertThat(limiter.named(name).limit("warm", 1).allowed()).isTrue();
      int before = dispatched.scriptCalls.get();
      ExecutorService pool = Executors.newFixedThreadPool(3);
      server.call("CLIENT", "PAUSE", "20000", "WRITE");
      try {
        test.run(limiter, dispatched, before, pool);
      } finally {
        server.call("CLIENT", "UNPAUSE");
        pool.shutdownNow();
      }
    }
  }

  /** A synchronous decision on the pool, its thread noted in {@code threads}. */
  private static Future<Decision> submitNoted(ExecutorService pool, Queue<Thread> threads, Callable<Decision> decision) {
    return pool.submit(() -> {
      threads.add(Thread.currentThread());
      return decision.call();
    });
  }

  /**
   * Whether {@code count} noted threads park waiting for their replies: a thread parks only once
   * its request is taken on, and sent or held.
   */
  private static boolean parked(Queue<Thread> threads, int count) {
    return threads.size() == count && threads.stream().allMatch(t -> t.getState() == Thread.State.WAITING);
  }
}

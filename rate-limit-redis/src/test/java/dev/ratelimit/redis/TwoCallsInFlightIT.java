package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.ManualClock;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.limiter.RateLimiter;
import io.lettuce.core.ClientOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The failure paths of a lane with two script calls in flight (ScriptBatcher.Lane), on a real
 * server: the script lost while calls are in flight, a connection killed or a call timed out with
 * two in flight, sync and async callers racing on the same keys, a waiting caller interrupted.
 * Every store here reads a {@link ManualClock} (keys never expire, counts are exact) and every
 * limiter another, so that the limiter's store health probes again only when a test says so.
 * Ordering comes from {@code CLIENT PAUSE ... WRITE} (calls sent stay in flight) and Lettuce's
 * command listener (what was sent), never from sleeps.
 */
class TwoCallsInFlightIT {
  private static RedisServer server;

  @BeforeAll
  static void startRedis() {
    server = RedisServer.start();
  }

  @AfterAll
  static void stopRedis() {
    if (server != null) {
      server.close();
    }
  }

  @AfterEach
  void unpause() {
    server.call("CLIENT", "UNPAUSE");
  }

  /**
   * Redis loses the script (FUNCTION FLUSH, SCRIPT FLUSH, over and over) while 12 threads' calls
   * are in flight, one or two at a time, over 24 keys: every call that finds it gone loads it and
   * is sent again, and still each key admits exactly its capacity, each remaining value once, and
   * no caller sees anything but a decision.
   */
  @Test
  void scriptLostMidFlight_everyKeyAdmitsExactlyItsCapacity() throws Exception {
    try (Dispatched dispatched = new Dispatched(server.uri(), Duration.ofSeconds(5))) {
      flushStorm(dispatched, "flush");
      assertThat(dispatched.loads.get()).as("libraries loaded again after a flush").isGreaterThan(1);
    }
  }

  /**
   * The same by EVALSHA (an ACL that refuses FCALL, as on a server before Redis 7): every call
   * that finds the script gone (NOSCRIPT) is sent again by EVAL, which may reach Redis after a
   * call started beside it, and still each key admits exactly its capacity.
   */
  @Test
  void scriptLostMidFlight_byEvalsha_everyKeyAdmitsExactlyItsCapacity() throws Exception {
    server.call("ACL", "SETUSER", "nofunctions", "on", ">secret", "~*", "&*", "+@all", "-fcall", "-function");
    String uri = "redis://nofunctions:secret@127.0.0.1:" + server.port();
    try (Dispatched dispatched = new Dispatched(uri, Duration.ofSeconds(5))) {
      flushStorm(dispatched, "flush-evalsha");
      assertThat(dispatched.evals.get()).as("calls sent again by EVAL after NOSCRIPT").isGreaterThan(1);
    }
  }

  /**
   * 12 threads' sync requests over 24 keys while another thread flushes functions and scripts
   * over and over.
   */
  private static void flushStorm(Dispatched dispatched, String name) throws Exception {
    RateLimiter limiter = dispatched.limiter(name, "token-bucket rate=40 period=365d", FailurePolicy.CLOSED);
    int threads = 12;
    int keys = 24;
    int perThread = 120; // each thread 5 on every key (7 and 24 coprime): 60 per key
    Map<String, Queue<Long>> admitted = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> denied = new ConcurrentHashMap<>();
    for (int k = 0; k < keys; k++) {
      admitted.put("k" + k, new ConcurrentLinkedQueue<>());
      denied.put("k" + k, new AtomicInteger());
    }
    Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicInteger flushes = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
    try {
      Future<?> flusher = pool.submit(() -> {
        start.await();
        while (running.get()) {
          server.call("FUNCTION", "FLUSH");
          server.call("SCRIPT", "FLUSH");
          flushes.incrementAndGet();
        }
        return null;
      });
      List<Future<?>> callers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        callers.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < perThread; i++) {
            String key = "k" + ((i * 7 + thread) % keys);
            try {
              Decision decision = limiter.named(name).limit(key, 1);
              if (decision.allowed()) {
                admitted.get(key).add(Math.round(decision.remaining()));
              } else {
                denied.get(key).incrementAndGet();
              }
            } catch (RuntimeException e) {
              failures.add(e);
            }
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> caller : callers) {
        caller.get(60, TimeUnit.SECONDS); // each call bounded by the 5 s command timeout
      }
      running.set(false);
      flusher.get(10, TimeUnit.SECONDS);
    } finally {
      running.set(false);
      pool.shutdownNow();
    }
    assertThat(failures).as("callers' failures").isEmpty();
    for (int k = 0; k < keys; k++) {
      String key = "k" + k;
      assertThat(admitted.get(key).stream().sorted().toList()).as("remaining after each admission on %s", key)
          .isEqualTo(LongStream.range(0, 40).boxed().toList());
      assertThat(denied.get(key)).as("denied on %s", key).hasValue(60 - 40);
    }
    assertThat(flushes.get()).as("flushes during the run").isGreaterThan(1);
    assertThat(dispatched.overlaps.get()).as("script calls started beside one in flight").isPositive();
    assertThat(dispatched.store.backlog().pending()).isZero();
  }

  /**
   * The connection killed (CLIENT KILL) while two calls are in flight (Redis paused for writes,
   * so neither ran) and more requests wait in the lane, sync and async: every request completes,
   * each decided by the policy (closed: StoreUnavailableException) exactly once, none also by
   * Redis (after, every key still has all its units); and the lane is not stuck: the next
   * requests, on the same keys and others, are decided by Redis.
   */
  @Test
  void connectionKilledWithTwoCallsInFlight_eachRequestDecidedOnce_laneNotStuck() throws Exception {
    try (Dispatched dispatched = new Dispatched(server.uri(), Duration.ofSeconds(5))) {
      InFlight inFlight = twoCallsInFlightAndMoreWaiting(dispatched, "killed");
      Object killed = server.call("CLIENT", "KILL", "TYPE", "normal");
      assertThat((Long) killed).as("connections killed").isPositive();
      inFlight.assertEachDecidedByThePolicy();
      server.call("CLIENT", "UNPAUSE");
      inFlight.assertDecidedByRedisAgain(9);
    }
  }

  /**
   * Both calls in flight time out (Redis paused for writes past the command timeout) while more
   * requests wait in the lane: every request is decided by the policy once; the waiting ones are
   * never sent (those in flight do run once Redis goes on: they had been sent), and the lane is
   * not stuck after.
   */
  @Test
  void twoCallsInFlightTimeOut_waitingRequestsAreNeverSent_laneNotStuck() throws Exception {
    try (Dispatched dispatched = new Dispatched(server.uri(), Duration.ofSeconds(1))) {
      InFlight inFlight = twoCallsInFlightAndMoreWaiting(dispatched, "late");
      inFlight.assertEachDecidedByThePolicy();
      server.call("CLIENT", "UNPAUSE");
      // the two calls in flight ran after all (Redis had them): one unit on a and on b, none
      // for the requests that waited behind them
      inFlight.assertDecidedByRedisAgain(8);
    }
  }

  /**
   * A call that timed out while Redis had lost its script (FUNCTION FLUSH; Redis paused past the
   * command timeout) is not sent again when "Function not found" comes back after the timeout:
   * its request was decided by the policy (open: admitted), so Redis must not take its unit too.
   */
  @Test
  void callTimedOutWhileItsScriptWasLost_isNotSentAgainAfterTheTimeout() throws Exception {
    try (Dispatched dispatched = new Dispatched(server.uri(), Duration.ofSeconds(1))) {
      RateLimiter limiter = dispatched.limiter("zombie", "token-bucket rate=10 period=365d", FailurePolicy.OPEN);
      assertThat(limiter.named("zombie").limit("warm", 1).allowed()).isTrue();
      server.call("FUNCTION", "FLUSH");
      server.call("CLIENT", "PAUSE", "30000", "WRITE");
      Decision byPolicy = limiter.named("zombie").limitAsync("k", 1).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(byPolicy.remaining()).as("open: admitted by the policy, not by Redis").isEqualTo(10);
      // that was the call's command timeout, which gave its place back: before it, the call
      // might still have been sent again and decided by Redis, as any call in flight
      await().atMost(Duration.ofSeconds(10)).until(() -> dispatched.store.backlog().pending() == 0);
      server.call("CLIENT", "UNPAUSE");
      // its FCALL answered (Function not found), and what that answer set off is on the wire
      await().atMost(Duration.ofSeconds(10)).until(() -> dispatched.outstanding() == 0);
      dispatched.limiterClock.advance(Dispatched.RETRY); // the timeout counted as a failure: probe again
      assertThat(limiter.named("zombie").limit("k", 1).remaining()).isCloseTo(9, within(1e-3));
      assertThat(limiter.named("zombie").limit("k", 1).remaining()).as("no unit taken for the timed-out call")
          .isCloseTo(8, within(1e-3));
    }
  }

  /**
   * An application's connection with Lettuce's default options sends a command again after a
   * reconnect (at least once). A call that timed out while its connection was down (killed, and
   * reconnects refused: the user disabled) was decided by the policy; when the connection comes
   * back, Redis must not run it after all.
   */
  @Test
  void callTimedOutWhileDisconnected_isNotRunWhenTheConnectionComesBack() throws Exception {
    server.call("ACL", "SETUSER", "comeback", "on", ">secret", "~*", "&*", "+@all");
    String uri = "redis://comeback:secret@127.0.0.1:" + server.port();
    try (Dispatched dispatched = new Dispatched(uri, Duration.ofSeconds(1), ClientOptions.create())) {
      RateLimiter limiter = dispatched.limiter("comeback", "token-bucket rate=10 period=365d", FailurePolicy.CLOSED);
      assertThat(limiter.named("comeback").limit("warm", 1).allowed()).isTrue();
      int before = dispatched.scriptCalls.get();
      ExecutorService pool = Executors.newFixedThreadPool(1);
      try {
        server.call("CLIENT", "PAUSE", "30000", "WRITE");
        Future<Decision> first = pool.submit(() -> limiter.named("comeback").limit("k", 1));
        await().atMost(Duration.ofSeconds(10)).until(() -> dispatched.scriptCalls.get() == before + 1);
        server.call("ACL", "SETUSER", "comeback", "off");
        assertThat((Long) server.call("CLIENT", "KILL", "USER", "comeback")).isEqualTo(1L);
        assertThatThrownBy(() -> first.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(StoreUnavailableException.class);
        // past the call's command timeout too (its place in the backlog is given back then)
        await().atMost(Duration.ofSeconds(10)).until(() -> dispatched.store.backlog().pending() == 0);
        server.call("CLIENT", "UNPAUSE");
        server.call("ACL", "SETUSER", "comeback", "on");
        await().atMost(Duration.ofSeconds(20)).until(() -> {
          dispatched.limiterClock.advance(Dispatched.RETRY); // the store failed: the limiter probes it again
          try {
            return limiter.named("comeback").limit("other", 1).allowed();
          } catch (StoreUnavailableException notYet) {
            return false;
          }
        });
        assertThat(limiter.named("comeback").limit("k", 1).remaining()).as("no unit taken for the timed-out call")
            .isCloseTo(9, within(1e-3));
      } finally {
        pool.shutdownNow();
      }
    }
  }

  /**
   * Sync callers and async callers (each async thread's requests sent without waiting) on the
   * same keys: each key admits exactly its capacity, each remaining value once, every async
   * thread's requests on a key are decided in its order (remaining strictly falling, no
   * admission after a denial), and two calls were in flight together many times.
   */
  @Test
  void syncAndAsyncCallersOnTheSameKeys_exactTotals_asyncOrderKept_twoCallsInFlightOften() throws Exception {
    try (Dispatched dispatched = new Dispatched(server.uri(), Duration.ofSeconds(5))) {
      RateLimiter limiter = dispatched.limiter("mixed", "token-bucket rate=100 period=365d", FailurePolicy.CLOSED);
      int asyncThreads = 4;
      int syncThreads = 6;
      int keys = 12;
      int asyncPerKey = 50; // each async thread: 50 on every key
      int syncPerThread = 200; // 6 x 200 = 1200 over 12 keys: 100 per key
      int perKey = asyncThreads * asyncPerKey + syncThreads * syncPerThread / keys; // 300
      Map<String, Queue<Long>> admitted = new ConcurrentHashMap<>();
      for (int k = 0; k < keys; k++) {
        admitted.put("k" + k, new ConcurrentLinkedQueue<>());
      }
      AtomicInteger decided = new AtomicInteger();
      CountDownLatch start = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(asyncThreads + syncThreads);
      try {
        List<Future<Map<String, List<CompletableFuture<Decision>>>>> async = new ArrayList<>();
        for (int t = 0; t < asyncThreads; t++) {
          int thread = t;
          async.add(pool.submit(() -> {
            Map<String, List<CompletableFuture<Decision>>> byKey = new TreeMap<>();
            start.await();
            for (int n = 0; n < asyncPerKey; n++) {
              for (int k = 0; k < keys; k++) {
                String key = "k" + ((k + thread * 5) % keys);
                byKey.computeIfAbsent(key, x -> new ArrayList<>())
                    .add(limiter.named("mixed").limitAsync(key, 1).toCompletableFuture());
              }
            }
            return byKey;
          }));
        }
        List<Future<?>> sync = new ArrayList<>();
        for (int t = 0; t < syncThreads; t++) {
          int thread = t;
          sync.add(pool.submit(() -> {
            start.await();
            for (int i = 0; i < syncPerThread; i++) {
              String key = "k" + ((i + thread) % keys);
              Decision decision = limiter.named("mixed").limit(key, 1);
              if (decision.allowed()) {
                admitted.get(key).add(Math.round(decision.remaining()));
              }
              decided.incrementAndGet();
            }
            return null;
          }));
        }
        start.countDown();
        for (Future<?> thread : sync) {
          thread.get(60, TimeUnit.SECONDS);
        }
        for (Future<Map<String, List<CompletableFuture<Decision>>>> thread : async) {
          for (Map.Entry<String, List<CompletableFuture<Decision>>> key : thread.get(60, TimeUnit.SECONDS).entrySet()) {
            double last = Double.POSITIVE_INFINITY;
            boolean deniedBefore = false;
            assertThat(key.getValue()).hasSize(asyncPerKey);
            for (CompletableFuture<Decision> reply : key.getValue()) {
              Decision decision = reply.get(30, TimeUnit.SECONDS);
              decided.incrementAndGet();
              if (decision.allowed()) {
                assertThat(deniedBefore).as("%s: admitted after a denial of the same thread", key.getKey()).isFalse();
                assertThat(decision.remaining()).as("%s: in the thread's order", key.getKey()).isLessThan(last);
                last = decision.remaining();
                admitted.get(key.getKey()).add(Math.round(decision.remaining()));
              } else {
                deniedBefore = true;
              }
            }
          }
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(decided.get()).isEqualTo(keys * perKey);
      for (int k = 0; k < keys; k++) {
        assertThat(admitted.get("k" + k).stream().sorted().toList()).as("remaining after each admission on k%d", k)
            .isEqualTo(LongStream.range(0, 100).boxed().toList());
      }
      assertThat(dispatched.overlaps.get()).as("script calls started beside one in flight").isGreaterThan(10);
      assertThat(dispatched.store.backlog().pending()).isZero();
    }
  }

  /**
   * A sync caller interrupted while its request waits in the lane (behind a call on its key)
   * gets the policy's answer, and its request is then never sent: Redis must not take a unit
   * for a caller that was told otherwise (with {@code open} it would have been admitted twice
   * over: by the policy, and in Redis's count).
   */
  @Test
  void interruptedWhileWaitingInTheLane_itsRequestIsNeverSent() throws Exception {
    try (Dispatched dispatched = new Dispatched(server.uri(), Duration.ofSeconds(10))) {
      RateLimiter limiter = dispatched.limiter("interrupted", "token-bucket rate=10 period=365d", FailurePolicy.OPEN);
      assertThat(limiter.named("interrupted").limit("warm", 1).allowed()).isTrue();
      int before = dispatched.scriptCalls.get();
      ExecutorService pool = Executors.newFixedThreadPool(2);
      server.call("CLIENT", "PAUSE", "20000", "WRITE");
      try {
        Future<Decision> first = pool.submit(() -> limiter.named("interrupted").limit("k", 1));
        await().atMost(Duration.ofSeconds(10)).until(() -> dispatched.scriptCalls.get() == before + 1);
        Queue<Thread> waiting = new ConcurrentLinkedQueue<>();
        Future<Decision> second = pool.submit(() -> {
          waiting.add(Thread.currentThread());
          return limiter.named("interrupted").limit("k", 1);
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> waiting.size() == 1
            && waiting.peek().getState() == Thread.State.WAITING && dispatched.store.backlog().pending() == 2);
        waiting.peek().interrupt();
        Decision byPolicy = second.get(10, TimeUnit.SECONDS);
        assertThat(byPolicy.remaining()).as("open: admitted by the policy, not by Redis").isEqualTo(10);
        server.call("CLIENT", "UNPAUSE");
        assertThat(first.get(10, TimeUnit.SECONDS).remaining()).isCloseTo(9, within(1e-3));
        dispatched.limiterClock.advance(Dispatched.RETRY); // the interrupt counted as a failure: probe again
        assertThat(limiter.named("interrupted").limit("k", 1).remaining()).as("no unit taken for the interrupted one")
            .isCloseTo(8, within(1e-3));
        assertThat(dispatched.scriptCalls.get()).as("the interrupted request never sent").isEqualTo(before + 2);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  /**
   * Two calls in flight on a paused Redis (a sync request on a, then one on b) and behind them
   * more requests in the lane: sync on a and on e, async on c and on b.
   */
  private static InFlight twoCallsInFlightAndMoreWaiting(Dispatched dispatched, String name) {
    RateLimiter limiter = dispatched.limiter(name, "token-bucket rate=10 period=365d", FailurePolicy.CLOSED);
    assertThat(limiter.named(name).limit("warm", 1).allowed()).isTrue();
    int before = dispatched.scriptCalls.get();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    server.call("CLIENT", "PAUSE", "30000", "WRITE");
    Queue<Thread> threads = new ConcurrentLinkedQueue<>();
    List<Future<Decision>> sync = new ArrayList<>();
    sync.add(submit(pool, threads, () -> limiter.named(name).limit("a", 1)));
    await().atMost(Duration.ofSeconds(10)).until(() -> dispatched.scriptCalls.get() == before + 1);
    sync.add(submit(pool, threads, () -> limiter.named(name).limit("b", 1)));
    await().atMost(Duration.ofSeconds(10)).until(() -> dispatched.scriptCalls.get() == before + 2);
    sync.add(submit(pool, threads, () -> limiter.named(name).limit("a", 1)));
    sync.add(submit(pool, threads, () -> limiter.named(name).limit("e", 1)));
    List<CompletableFuture<Decision>> async = List.of(limiter.named(name).limitAsync("c", 1).toCompletableFuture(),
        limiter.named(name).limitAsync("b", 1).toCompletableFuture());
    await().atMost(Duration.ofSeconds(10)).until(() -> threads.size() == 4
        && threads.stream().allMatch(t -> t.getState() == Thread.State.WAITING)
        && dispatched.store.backlog().pending() == 6);
    assertThat(dispatched.scriptCalls.get()).as("two calls in flight, the rest waiting").isEqualTo(before + 2);
    return new InFlight(dispatched, limiter, name, pool, sync, async);
  }

  private interface Decide {
    Decision call();
  }

  private static Future<Decision> submit(ExecutorService pool, Queue<Thread> threads, Decide decide) {
    return pool.submit(() -> {
      threads.add(Thread.currentThread());
      return decide.call();
    });
  }

  /** The requests of {@link #twoCallsInFlightAndMoreWaiting}. */
  private record InFlight(Dispatched dispatched, RateLimiter limiter, String name, ExecutorService pool,
      List<Future<Decision>> sync, List<CompletableFuture<Decision>> async) {

    /** closed: every one fails with StoreUnavailableException, and each of them completes. */
    void assertEachDecidedByThePolicy() throws Exception {
      try {
        for (Future<Decision> request : sync) {
          assertThatThrownBy(() -> request.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
              .hasCauseInstanceOf(StoreUnavailableException.class);
        }
        for (CompletableFuture<Decision> request : async) {
          assertThatThrownBy(() -> request.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
              .hasCauseInstanceOf(StoreUnavailableException.class);
        }
      } finally {
        pool.shutdownNow();
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> dispatched.store.backlog().pending() == 0);
    }

    /**
     * Redis decides again, on every key of the lane and a new one: a and b have {@code remaining}
     * left after this request, c and e (whose requests only waited) 9, a new key 9.
     */
    void assertDecidedByRedisAgain(double remaining) {
      dispatched.limiterClock.advance(Dispatched.RETRY); // the store failed: the limiter probes it again
      // the first request probes the store, and may find the connection still coming back
      await().atMost(Duration.ofSeconds(10)).until(() -> {
        dispatched.limiterClock.advance(Dispatched.RETRY);
        try {
          return limiter.named(name).limit("new", 1).allowed();
        } catch (StoreUnavailableException notYet) {
          return false;
        }
      });
      assertThat(limiter.named(name).limit("a", 1).remaining()).as("a").isCloseTo(remaining, within(1e-3));
      assertThat(limiter.named(name).limit("b", 1).remaining()).as("b").isCloseTo(remaining, within(1e-3));
      assertThat(limiter.named(name).limit("c", 1).remaining()).as("c").isCloseTo(9, within(1e-3));
      assertThat(limiter.named(name).limitAsync("e", 1).toCompletableFuture().join().remaining()).as("e")
          .isCloseTo(9, within(1e-3));
      assertThat(limiter.named(name).limit("other", 1).remaining()).as("a new key").isCloseTo(9, within(1e-3));
    }
  }
}

package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.KeySpace;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.netty.util.HashedWheelTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Phaser;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A slow Redis (docs/design.md §4.3.1): held up by a Lua busy loop past the command timeout, every
 * caller has the failure policy's answer within it (plus scheduling noise), those waiting behind
 * the call that timed out at once with it, and asynchronous callers past {@code maxPending} are
 * refused at once; slow but answering within the timeout, Redis decides everything, with the
 * waits of a queue.
 *
 * <p>The busy loop goes first on the store's own connection, which keeps order: every script call
 * of the store is behind it, with no sleep to make it so.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SlowRedisIT {
  /** Holds Redis for {@code ARGV[1]} ms: nothing else runs meanwhile (below Redis's 5 s busy-reply threshold). */
  private static final String BUSY = "local t = redis.call('TIME') local start = t[1] * 1000000 + t[2] "
      + "repeat local n = redis.call('TIME') until n[1] * 1000000 + n[2] - start >= tonumber(ARGV[1]) * 1000 "
      + "return 1";
  /**
   * Long enough for the test thread to take on every call before the first times out, on a busy
   * machine (at a load average of 20 on two cores, a thousand calls took longer than a second).
   */
  private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(2000);
  /** Longer than the command timeout: every decision taken on while Redis is busy fails. */
  private static final String BUSY_MILLIS = "3000";
  /**
   * Scheduling noise on a busy two-core machine (command timeouts add a 10 ms timer tick): as
   * RedisFailureIT's; at a load average of 14, 16 threads waited up to 480 ms for a core.
   */
  private static final long MARGIN_MILLIS = 500;
  /** Refills 0.003 units a second: what Redis took is visible for the test's few seconds. */
  private static final String SPEC = "token-bucket rate=1000000 period=3650d";
  private static final double CAPACITY = 1_000_000;

  private RedisServer server;
  private ClientResources resources;
  private RedisClient client;
  private StatefulRedisConnection<String, String> connection;

  @BeforeEach
  void startRedis() {
    server = RedisServer.start();
    // a timer as fine as the one of a store that makes its own client, for the command timeouts
    resources = DefaultClientResources.builder().timer(new HashedWheelTimer(10, TimeUnit.MILLISECONDS)).build();
    client = RedisClient.create(resources, server.uri());
    connection = client.connect(StringCodec.UTF8);
  }

  @AfterEach
  void stopRedis() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    resources.shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    server.close();
  }

  private RedisStore store(int maxPending) {
    return RedisStore.builder().connection(connection).commandTimeout(COMMAND_TIMEOUT).maxPending(maxPending).build();
  }

  /** Redis busy from now on for every command sent after this on the connection. */
  private RedisFuture<Long> holdRedis(String millis) {
    return connection.async().eval(BUSY, ScriptOutputType.INTEGER, new String[0], millis);
  }

  private static long millisSince(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }

  @Test
  void asyncCallers_busyRedis_pastTheBoundRefusedAtOnce_theRestFailWithTheCallAhead_andOpenDecidesEach()
      throws Exception {
    int bound = 16;
    int calls = 200;
    RedisStore store = store(bound);
    Map<String, AtomicInteger> byPolicy = new ConcurrentHashMap<>();
    try (RateLimiter limiter = RateLimiter.builder().store(store).storeRetry(Duration.ofHours(1))
        .listener((limit, decision, fallback) ->
            byPolicy.computeIfAbsent(String.valueOf(fallback), f -> new AtomicInteger()).incrementAndGet())
        .limit("open", SPEC + " failure=open").build()) {
      assertThat(limiter.named("open").limit("k", 1).remaining()).as("on Redis, script loaded").isLessThan(CAPACITY - 0.5);
      RedisFuture<Long> busy = holdRedis(BUSY_MILLIS);

      long[] starts = new long[calls];
      long[] millis = new long[calls];
      List<CompletableFuture<Decision>> decisions = new ArrayList<>(calls);
      for (int i = 0; i < calls; i++) {
        int call = i;
        starts[i] = System.nanoTime();
        decisions.add(limiter.named("open").limitAsync("k", 1).toCompletableFuture()
            .whenComplete((decision, failure) -> millis[call] = millisSince(starts[call])));
      }
      // the first `bound` wait on Redis: one call in flight, the others in the lane behind it; the
      // rest are refused at once, which is not a store failure: the store is still available
      assertThat(decisions.subList(0, bound)).noneMatch(CompletableFuture::isDone);
      assertThat(decisions.subList(bound, calls)).allSatisfy(refused -> assertThatThrownBy(refused::join)
          .hasCauseInstanceOf(RejectedExecutionException.class).cause().hasMessageContaining("maxPending"));
      assertThat(store.backlog().pending()).isEqualTo(bound);
      assertThat(store.backlog().refused()).isEqualTo(calls - bound);
      assertThat(limiter.storeAvailable()).isTrue();

      CompletableFuture.allOf(decisions.subList(0, bound).toArray(CompletableFuture<?>[]::new))
          .get(10, TimeUnit.SECONDS);
      assertThat(decisions.subList(0, bound)).as("open: every one admitted by the policy, none by Redis")
          .allSatisfy(d -> assertThat(d.join()).matches(Decision::allowed).extracting(Decision::remaining)
              .isEqualTo(CAPACITY));
      for (int i = 0; i < bound; i++) {
        assertThat(millis[i]).as("call %d's latency", i)
            .isBetween(COMMAND_TIMEOUT.toMillis() - 20, COMMAND_TIMEOUT.toMillis() + MARGIN_MILLIS);
      }
      assertThat(limiter.storeAvailable()).isFalse();
      Decision skipped = limiter.named("open").limitAsync("k", 1).toCompletableFuture().get(1, TimeUnit.SECONDS);
      assertThat(skipped.remaining()).as("the store down: the policy at once").isEqualTo(CAPACITY);
      assertThat(byPolicy).as("decisions heard by what decided them").containsOnlyKeys("null", "OPEN");
      assertThat(byPolicy.get("null").get()).as("the warm-up, on Redis").isEqualTo(1);
      assertThat(byPolicy.get("OPEN").get()).isEqualTo(bound + 1);

      assertThat(busy.get(10, TimeUnit.SECONDS)).isEqualTo(1L);
      // the call in flight ran after the busy loop; the ones that waited behind it and the
      // refused ones were never sent
      KeySpace direct = store.bind("open", Limit.parse(SPEC));
      assertThat(direct.apply("k", Operation.CHECK, 0, 0).remaining()).isCloseTo(CAPACITY - 2, within(0.1));
      assertThat(store.backlog().pending()).isZero();
    }
  }

  @Test
  void syncCallers_manyThreads_busyRedis_closedDecidesEveryOneWithinTheCommandTimeout() throws Exception {
    int threads = 48;
    RedisStore store = store(1);
    try (RateLimiter limiter = RateLimiter.builder().store(store).storeRetry(Duration.ofHours(1))
        .limit("closed", SPEC + " failure=closed").build()) {
      assertThat(limiter.named("closed").limit("warm", 1).allowed()).isTrue();
      RedisFuture<Long> busy = holdRedis(BUSY_MILLIS);

      CountDownLatch go = new CountDownLatch(1);
      ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
      ConcurrentLinkedQueue<Object> outcomes = new ConcurrentLinkedQueue<>();
      List<Thread> callers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String key = "t" + t;
        Thread caller = new Thread(() -> {
          try {
            go.await();
          } catch (InterruptedException e) {
            return;
          }
          long start = System.nanoTime();
          try {
            outcomes.add(limiter.named("closed").limit(key, 1));
          } catch (RuntimeException e) {
            outcomes.add(e);
          }
          latencies.add(millisSince(start));
        }, "caller-" + t);
        callers.add(caller);
        caller.start();
      }
      go.countDown();
      for (Thread caller : callers) {
        caller.join(10_000);
      }

      assertThat(outcomes).as("closed: every one refused by the policy").hasSize(threads)
          .allMatch(StoreUnavailableException.class::isInstance);
      assertThat(store.backlog().peak()).as("every caller waited its turn: none shed (maxPending is 1)")
          .isEqualTo(threads);
      assertThat(store.backlog().refused()).isZero();
      assertThat(latencies).hasSize(threads)
          .allSatisfy(ms -> assertThat(ms).isLessThanOrEqualTo(COMMAND_TIMEOUT.toMillis() + MARGIN_MILLIS));
      assertThat(limiter.storeAvailable()).isFalse();

      assertThat(busy.get(10, TimeUnit.SECONDS)).isEqualTo(1L);
      KeySpace direct = store.bind("closed", Limit.parse(SPEC));
      assertThat(direct.apply("warm", Operation.CHECK, 0, 0).remaining()).isCloseTo(CAPACITY - 1, within(0.1));
      assertThat(store.backlog().pending()).isZero();
    }
  }

  @Test
  void slowButAnsweringRedis_syncAndAsyncLoad_nothingFails_asyncPastTheBoundRefused() throws Exception {
    int bound = 64;
    RedisStore store = RedisStore.builder().connection(connection).commandTimeout(COMMAND_TIMEOUT).maxPending(bound)
        .build();
    KeySpace space = store.bind("load", Limit.parse(SPEC));
    space.apply("warm", Operation.LIMIT, 1, 0);

    // Redis answers, but only between busy loops of 100 ms on another connection, each call well
    // within its command timeout; each loop is a phase, in which every caller makes a few calls
    Phaser phases = new Phaser(1);
    Thread slowness = new Thread(() -> {
      try (StatefulRedisConnection<String, String> other = client.connect(StringCodec.UTF8)) {
        for (int i = 0; i < 20; i++) {
          other.sync().eval(BUSY, ScriptOutputType.INTEGER, new String[0], "100");
          phases.arrive();
        }
      } finally {
        phases.arriveAndDeregister(); // terminates the phaser: the callers stop
      }
    }, "slow-redis");

    ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Decision> answered = new ConcurrentLinkedQueue<>();
    List<Thread> callers = new ArrayList<>();
    for (int t = 0; t < 16; t++) {
      String key = "s" + t;
      Thread caller = new Thread(() -> {
        for (int phase = phases.getPhase(); phase >= 0; phase = phases.awaitAdvance(phase)) {
          for (int i = 0; i < 8; i++) {
            long start = System.nanoTime();
            try {
              answered.add(space.apply(key, Operation.LIMIT, 1, 0));
            } catch (RuntimeException e) {
              failures.add(e);
            }
            latencies.add(millisSince(start));
          }
        }
      }, "sync-" + t);
      callers.add(caller);
      caller.start();
    }
    slowness.start();
    // async callers: a burst of four times the bound per phase, each burst waited for (each of its
    // calls answered by Redis, or refused at once)
    int asyncCalls = 0;
    for (int phase = phases.getPhase(); phase >= 0; phase = phases.awaitAdvance(phase)) {
      List<CompletableFuture<Decision>> burst = new ArrayList<>();
      for (int i = 0; i < 4 * bound; i++, asyncCalls++) {
        long start = System.nanoTime();
        burst.add(space.applyAsync("a" + (asyncCalls % 100), Operation.LIMIT, 1, 0).toCompletableFuture()
            .whenComplete((d, failure) -> {
              latencies.add(millisSince(start));
              if (failure == null) {
                answered.add(d);
              } else {
                failures.add(failure);
              }
            }));
      }
      CompletableFuture.allOf(burst.stream().map(f -> f.exceptionally(e -> null)).toArray(CompletableFuture<?>[]::new))
          .get(10, TimeUnit.SECONDS);
    }
    for (Thread caller : callers) {
      caller.join(10_000);
    }
    slowness.join(10_000);

    Backlog backlog = store.backlog();
    long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
    System.out.printf("slow Redis: %d calls (%d async), %d answered, %d refused; latency p50 %d ms, p99 %d ms, "
        + "max %d ms; peak pending %d%n", sorted.length, asyncCalls, answered.size(), backlog.refused(),
        sorted[sorted.length / 2], sorted[sorted.length * 99 / 100], sorted[sorted.length - 1], backlog.peak());
    assertThat(failures).as("no failure but asynchronous calls refused past the bound: Redis answered each call")
        .allSatisfy(e -> assertThat(ScriptRunner.unwrap(e)).isInstanceOf(RejectedExecutionException.class));
    assertThat((long) failures.size()).isEqualTo(backlog.refused());
    assertThat(backlog.refused()).isPositive();
    assertThat(answered).as("Redis answered").isNotEmpty()
        .allSatisfy(d -> assertThat(d.remaining()).isLessThan(CAPACITY));
    assertThat(latencies).as("every call's latency, ms").hasSize(answered.size() + failures.size())
        .allSatisfy(ms -> assertThat(ms).isLessThanOrEqualTo(COMMAND_TIMEOUT.toMillis() + MARGIN_MILLIS));
    assertThat(asyncCalls).isPositive();
    // a check behind every call sent: all have returned
    space.apply("warm", Operation.CHECK, 0, 0);
    assertThat(backlog.pending()).isZero();
    store.close();
  }
}

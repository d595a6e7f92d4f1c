package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ratelimit.Decision;
import dev.ratelimit.DecisionListener;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.contract.VirtualThreads;
import dev.ratelimit.limiter.Decisions;
import dev.ratelimit.limiter.NamedLimiter;
import dev.ratelimit.limiter.RateLimiter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.event.command.CommandFailedEvent;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import io.lettuce.core.event.command.CommandSucceededEvent;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.netty.util.HashedWheelTimer;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Load is not a failure (docs/design.md §4.3.1): with Redis healthy and the default command
 * timeout, thousands of callers at once wait for their turn, coalesced, and Redis decides every
 * one, none the failure policy (as each limiter's listener hears: its {@code fallback}), and no
 * more is admitted than the limit allows over the run (by Redis's clock). On one node and on two
 * (two stores, each with its own client, on one redis-server); on virtual threads (Java 21 and
 * later) and on platform threads. And a listener as slow as 20 ms a decision never runs on the
 * store's threads, so it can't make the store look unavailable.
 *
 * <p>"Healthy" is checked, not assumed: every command is timed as Lettuce sends and answers it,
 * with how many of the client's were outstanding when it was sent. One that took the command
 * timeout or longer with few ahead of it ({@value #FEW_AHEAD} at most: the client's own lanes and
 * all-or-nothing calls send no more) is Redis, or the machine's scheduler on a machine with many
 * more runnable threads than cores, slower than the timeout, which the failure policy rightly
 * decides: a run where the policy decided after such a call proves nothing about load, and is
 * aborted saying so. Otherwise any decision by the policy fails the test, a call late behind many
 * of the client's own included (that is load made a failure).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class RedisLoadIT {
  /** Acquire's limit: 100 at once, then one every 0.1 ms. */
  private static final int RATE = 10_000;
  private static final int CAPACITY = 100;

  private static final Duration TIMEOUT = RedisStore.DEFAULT_TIMEOUT;
  /** Commands of the client's ahead of one it sends, at most, for its lateness to be Redis's. */
  private static final int FEW_AHEAD = 32;

  private static RedisServer server;
  private static final AtomicInteger RUNS = new AtomicInteger();
  private final List<AutoCloseable> closing = new ArrayList<>();
  /** Commands sent with few ahead that took the command timeout or longer, and the longest, in ms. */
  private final AtomicInteger lateCalls = new AtomicInteger();
  private final AtomicLong longestCall = new AtomicLong();

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
  void close() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
  }

  /** The callers: virtual threads, as many as the brief's attack used, or platform threads. */
  enum Callers {
    VIRTUAL(10_000, 3_000),
    PLATFORM(2_000, 2_000);

    /** Callers on one key; callers on as many keys. */
    final int onOneKey;
    final int onTheirOwnKeys;

    Callers(int onOneKey, int onTheirOwnKeys) {
      this.onOneKey = onOneKey;
      this.onTheirOwnKeys = onTheirOwnKeys;
    }

    ExecutorService pool(int size) {
      if (this == VIRTUAL) {
        assumeTrue(VirtualThreads.available(), "virtual threads need Java 21 or later");
        return VirtualThreads.executor();
      }
      return Executors.newFixedThreadPool(size);
    }
  }

  static Stream<Arguments> callersAndNodes() {
    return Stream.of(Arguments.of(Callers.VIRTUAL, 1), Arguments.of(Callers.VIRTUAL, 2),
        Arguments.of(Callers.PLATFORM, 1), Arguments.of(Callers.PLATFORM, 2));
  }

  /** What decided, as a limiter's listener hears it. */
  static final class Heard implements DecisionListener {
    final LongAdder byRedis = new LongAdder();
    final LongAdder byPolicy = new LongAdder();
    final Set<String> threads = ConcurrentHashMap.newKeySet();

    @Override
    public void onDecision(String limit, Decision decision, FailurePolicy fallback) {
      (fallback == null ? byRedis : byPolicy).increment();
      threads.add(Thread.currentThread().getName().replaceAll("[0-9]+", "#"));
    }
  }

  /**
   * {@code nodes} limiters, each on a store with its own client (the defaults: 250 ms command
   * timeout, the local failure policy), sharing one key prefix on the one Redis.
   */
  private List<RateLimiter> nodes(int nodes, DecisionListener heard, String... namesAndSpecs) {
    String prefix = "load" + RUNS.incrementAndGet();
    List<RateLimiter> made = new ArrayList<>();
    for (int n = 0; n < nodes; n++) {
      RateLimiter.Builder builder = RateLimiter.builder().store(store(options -> options.keyPrefix(prefix)))
          .listener(heard);
      for (int i = 0; i < namesAndSpecs.length; i += 2) {
        builder.limit(namesAndSpecs[i], namesAndSpecs[i + 1]);
      }
      RateLimiter limiter = builder.build();
      closing.add(limiter);
      made.add(limiter);
    }
    return made;
  }

  /**
   * A store on a client of its own, as one the store makes (a 10 ms timer for the command
   * timeouts), whose script calls are timed.
   */
  private RedisStore store(UnaryOperator<RedisStore.Builder> options) {
    ClientResources resources = DefaultClientResources.builder().timer(new HashedWheelTimer(10, TimeUnit.MILLISECONDS))
        .build();
    closing.add(() -> resources.shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS));
    RedisClient client = RedisClient.create(resources, server.uri());
    closing.add(() -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    Map<RedisCommand<?, ?, ?>, long[]> sent = new ConcurrentHashMap<>();
    AtomicInteger outstanding = new AtomicInteger();
    client.addListener(new CommandListener() {
      @Override
      public void commandStarted(CommandStartedEvent event) {
        sent.put(event.getCommand(), new long[] {System.nanoTime(), outstanding.getAndIncrement()});
      }

      @Override
      public void commandSucceeded(CommandSucceededEvent event) {
        answered(event.getCommand());
      }

      @Override
      public void commandFailed(CommandFailedEvent event) {
        answered(event.getCommand());
      }

      private void answered(RedisCommand<?, ?, ?> command) {
        long[] at = sent.remove(command);
        if (at == null) {
          return;
        }
        outstanding.decrementAndGet();
        long millis = (System.nanoTime() - at[0]) / 1_000_000;
        if (at[1] <= FEW_AHEAD && millis >= TIMEOUT.toMillis()) {
          lateCalls.incrementAndGet();
          longestCall.accumulateAndGet(millis, Math::max);
        }
      }
    });
    return options.apply(RedisStore.builder().client(client)).build();
  }

  /**
   * Nothing decided by the failure policy; where the policy did decide while Redis answered a
   * call later than the command timeout, the run is aborted instead (see the class comment).
   */
  private void assertDecidedByRedisAlone(Heard heard) {
    assumeTrue(heard.byPolicy.sum() == 0 || lateCalls.get() == 0, () -> lateCalls + " commands sent with at most "
        + FEW_AHEAD + " ahead took the " + TIMEOUT.toMillis() + " ms command timeout or longer on this machine (the longest "
        + longestCall
        + " ms; load average " + ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()
        + "): Redis answered too late, which the failure policy decided (" + heard.byPolicy
        + " decisions); this run says nothing about load");
    assertThat(heard.byPolicy.sum()).as("decided by the failure policy").isZero();
  }

  /** Redis {@code TIME} in milliseconds, as the scripts read it. */
  private static long redisMillis() {
    List<?> time = (List<?>) server.call("TIME");
    return Long.parseLong((String) time.get(0)) * 1000 + Long.parseLong((String) time.get(1)) / 1000;
  }

  /** Runs {@code callers} calls on the pool, all released at once; their results in order. */
  private static <T> List<T> atOnce(ExecutorService pool, int callers, IntFunction<Callable<T>> call)
      throws Exception {
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<T>> futures = new ArrayList<>(callers);
      for (int i = 0; i < callers; i++) {
        Callable<T> task = call.apply(i);
        futures.add(pool.submit(() -> {
          go.await();
          return task.call();
        }));
      }
      go.countDown();
      List<T> results = new ArrayList<>(callers);
      for (Future<T> future : futures) {
        results.add(future.get(2, TimeUnit.MINUTES));
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }

  @ParameterizedTest(name = "{0} threads, {1} node(s)")
  @MethodSource("callersAndNodes")
  void acquire_manyCallersOnOneKey_allDecidedByRedis_neverFasterThanTheLimit(Callers callers, int nodes)
      throws Exception {
    Heard heard = new Heard();
    List<RateLimiter> on = nodes(nodes, heard, "hot", "token-bucket rate=" + RATE + " period=1s capacity=" + CAPACITY);
    int n = callers.onOneKey;

    long start = redisMillis();
    List<Decision> acquired = atOnce(callers.pool(n), n,
        i -> () -> on.get(i % nodes).named("hot").acquire("k", 1, Duration.ofMinutes(1)));
    long end = redisMillis();

    assertDecidedByRedisAlone(heard);
    assertThat(heard.byRedis.sum()).isEqualTo(n);
    assertThat(acquired).allMatch(Decision::allowed);
    // every acquire returned once its unit was due: the run took at least as long as the limit
    // allows for n units (Redis's clock reads whole milliseconds: one more)
    double allowed = CAPACITY + RATE * (end - start + 1) / 1000.0;
    assertThat((double) n).as("admitted over %d ms by Redis's clock; the limit allows %.0f", end - start, allowed)
        .isLessThanOrEqualTo(allowed);
  }

  @ParameterizedTest(name = "{0} threads, {1} node(s)")
  @MethodSource("callersAndNodes")
  void limit_manyCallersOnAsManyKeys_allDecidedByRedis_eachKeyExact(Callers callers, int nodes) throws Exception {
    Heard heard = new Heard();
    List<RateLimiter> on = nodes(nodes, heard, "api", "token-bucket rate=1 period=1h");
    int n = callers.onTheirOwnKeys;

    // each caller twice on its own key (on each node, with two): admitted, then denied
    List<boolean[]> outcomes = atOnce(callers.pool(n), n, i -> () -> new boolean[] {
        on.get(i % nodes).named("api").limit("k" + i).allowed(), on.get((i + 1) % nodes).named("api").limit("k" + i).allowed()});

    assertDecidedByRedisAlone(heard);
    assertThat(heard.byRedis.sum()).isEqualTo(2L * n);
    assertThat(outcomes).allSatisfy(twice -> assertThat(twice).containsExactly(true, false));
  }

  @ParameterizedTest(name = "{0} threads, {1} node(s)")
  @MethodSource("callersAndNodes")
  void limitAll_manyCallersOnOneSharedKey_allDecidedByRedis_exactlyItsCapacity(Callers callers, int nodes)
      throws Exception {
    int n = callers.onOneKey;
    Heard heard = new Heard();
    List<RateLimiter> on = nodes(nodes, heard, "shared", "token-bucket rate=" + n / 2 + " period=3650d",
        "own", "token-bucket rate=1 period=3650d");

    // all or nothing: the shared key holds half the callers' units, each caller's own key one
    List<Decisions> outcomes = atOnce(callers.pool(n), n,
        i -> () -> {
          RateLimiter node = on.get(i % nodes);
          return node.limitAll(node.named("shared").call("s"), node.named("own").call("k" + i));
        });

    assertDecidedByRedisAlone(heard);
    assertThat(heard.byRedis.sum()).isEqualTo(2L * n);
    assertThat(outcomes.stream().filter(Decisions::allowed).count()).as("admitted").isEqualTo(n / 2);
  }

  @Test
  void asyncCallsPastMaxPending_areRefused_notDecidedByThePolicy_theStoreStaysAvailable() throws Exception {
    Heard heard = new Heard();
    RedisStore store = store(options -> options.keyPrefix("burst").maxPending(100)
        .commandTimeout(Duration.ofSeconds(10)));
    RateLimiter limiter = RateLimiter.builder().store(store).listener(heard)
        .limit("api", "token-bucket rate=1 period=1h").build();
    closing.add(limiter);
    assertThat(limiter.named("api").limit("warm").allowed()).isTrue();

    List<CompletableFuture<Decision>> burst = new ArrayList<>();
    server.call("CLIENT", "PAUSE", "10000", "WRITE"); // nothing answered while the burst comes
    try {
      for (int i = 0; i < 1000; i++) {
        burst.add(limiter.named("api").limitAsync("k" + i, 1).toCompletableFuture());
      }
    } finally {
      server.call("CLIENT", "UNPAUSE");
    }
    CompletableFuture.allOf(burst.stream().map(f -> f.exceptionally(e -> null)).toArray(CompletableFuture<?>[]::new))
        .get(30, TimeUnit.SECONDS);

    List<CompletableFuture<Decision>> refused = burst.subList(100, 1000);
    assertThat(refused).allSatisfy(f -> assertThat(f).isCompletedExceptionally())
        .allSatisfy(f -> assertThat(f.handle((d, e) -> ScriptRunner.unwrap(e)).join())
            .isInstanceOf(RejectedExecutionException.class));
    assertThat(burst.subList(0, 100)).as("decided by Redis").allSatisfy(f -> assertThat(f.join().allowed()).isTrue());
    assertThat(store.backlog().refused()).isEqualTo(900);
    assertThat(heard.byPolicy.sum()).isZero();
    assertThat(heard.byRedis.sum()).as("the refused are no decisions").isEqualTo(1 + 100);
    assertThat(limiter.storeAvailable()).isTrue();
    assertThat(limiter.named("api").limit("k999").allowed()).as("a refused call took nothing").isTrue();
  }

  @Test
  void slowListener_neverRunsOnTheStoresThreads_andNothingIsDecidedByThePolicy() throws Exception {
    Heard heard = new Heard();
    DecisionListener slow = (limit, decision, fallback) -> {
      heard.onDecision(limit, decision, fallback);
      try {
        Thread.sleep(20); // the listener under test: 20 ms a decision
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    };
    RateLimiter limiter = nodes(1, slow, "api", "token-bucket rate=1000000 period=1h").get(0);
    int asyncCallers = 4;
    int asyncEach = 50;
    int syncCallers = 2;
    int syncEach = 25;
    ExecutorService pool = Executors.newFixedThreadPool(asyncCallers + syncCallers,
        task -> new Thread(task, "caller"));
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < asyncCallers; t++) {
        done.add(pool.submit(() -> {
          List<CompletableFuture<Decision>> mine = new ArrayList<>();
          for (int i = 0; i < asyncEach; i++) {
            mine.add(limiter.named("api").limitAsync("a" + i, 1).toCompletableFuture());
          }
          for (CompletableFuture<Decision> decision : mine) {
            assertThat(decision.get(1, TimeUnit.MINUTES).allowed()).isTrue();
          }
          return null;
        }));
      }
      for (int t = 0; t < syncCallers; t++) {
        done.add(pool.submit(() -> {
          for (int i = 0; i < syncEach; i++) {
            assertThat(limiter.named("api").limit("s" + i).allowed()).isTrue();
          }
          return null;
        }));
      }
      for (Future<?> caller : done) {
        caller.get(2, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }

    assertDecidedByRedisAlone(heard);
    assertThat(heard.byRedis.sum()).as("every decision heard once")
        .isEqualTo(asyncCallers * asyncEach + syncCallers * syncEach);
    assertThat(heard.threads).as("where the listener ran").containsOnly("caller", "ratelimit-listener");
  }
}

package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.limiter.RateLimiter;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Redis going away under load: each limit's failure policy decides within the command timeout
 * ({@code open} admits, {@code closed} throws {@link StoreUnavailableException}, {@code local}
 * decides in memory), no threads pile up, and decisions go back to Redis once it is back.
 */
class RedisFailureIT {
  /**
   * Twice the default: a test machine running other builds beside this one (load average above
   * 10 on two cores) answers in 170 ms at times, which must not count as an outage here.
   */
  private static final Duration TIMEOUT = Duration.ofMillis(500);
  /** Scheduling noise on a busy two-core machine, on top of the command timeout. */
  private static final long SLACK_MILLIS = 500;
  private static final String[] LIMITS = {"open", "token-bucket rate=5 period=365d failure=open", "closed",
      "token-bucket rate=5 period=365d failure=closed", "local", "token-bucket rate=5 period=365d failure=local"};

  private RedisServer server;
  private int threadsBefore;

  enum Outcome { ADMITTED, DENIED, UNAVAILABLE, FAILED }

  record Call(String limit, long startNanos, long endNanos, Outcome outcome) {
    long millis() {
      return (endNanos - startNanos) / 1_000_000;
    }
  }

  @BeforeEach
  void startRedis() {
    server = RedisServer.start();
    // Lettuce and netty start some JVM-wide threads once; count ours after they exist
    RedisStore.builder().uri(server.uri()).build().close();
    threadsBefore = threads();
  }

  @AfterEach
  void stopRedis() {
    server.close();
  }

  private static int threads() {
    return ManagementFactory.getThreadMXBean().getThreadCount();
  }

  /** Thread names, but for the JDK's reaper of the test's redis-server processes. */
  private static List<String> threadNames() {
    return Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
        .filter(name -> !name.startsWith("process reaper")).sorted().toList();
  }

  /** Awaitility polling in the test's own thread, so that it adds none to the counts. */
  private static ConditionFactory waiting() {
    return Awaitility.await().pollInSameThread();
  }

  private RateLimiter limiter() {
    RedisStore store = RedisStore.builder().uri(server.uri()).commandTimeout(TIMEOUT).build();
    RateLimiter.Builder builder = RateLimiter.builder().store(store).storeRetry(Duration.ofMillis(100));
    for (int i = 0; i < LIMITS.length; i += 2) {
      builder.limit(LIMITS[i], LIMITS[i + 1]);
    }
    RateLimiter limiter = builder.build();
    for (int i = 0; i < LIMITS.length; i += 2) {
      // every bucket empty on Redis: from here on Redis denies, and only a policy admits
      assertThat(limiter.named(LIMITS[i]).limit("k", 5).allowed()).isTrue();
      assertThat(limiter.named(LIMITS[i]).limit("k", 1).allowed()).isFalse();
    }
    return limiter;
  }

  /** Threads calling every limit in turn until stopped, recording each call. */
  private static final class Load implements AutoCloseable {
    final ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();

    volatile Throwable lastFailure;
    volatile Throwable firstUnavailable;

    Load(RateLimiter limiter, int threadCount) {
      for (int t = 0; t < threadCount; t++) {
        Thread thread = new Thread(() -> {
          for (int i = 0; running.get(); i++) {
            String limit = LIMITS[2 * (i % 3)];
            long start = System.nanoTime();
            Outcome outcome;
            try {
              outcome = limiter.named(limit).limit("k", 1).allowed() ? Outcome.ADMITTED : Outcome.DENIED;
            } catch (StoreUnavailableException e) {
              if (firstUnavailable == null) {
                firstUnavailable = e;
              }
              outcome = Outcome.UNAVAILABLE;
            } catch (RuntimeException e) {
              lastFailure = e;
              outcome = Outcome.FAILED;
            }
            calls.add(new Call(limit, start, System.nanoTime(), outcome));
          }
        }, "load-" + t);
        threads.add(thread);
        thread.start();
      }
    }

    /** The calls that started at or after a moment. */
    List<Call> since(long nanos) {
      return calls.stream().filter(call -> call.startNanos() >= nanos).toList();
    }

    boolean saw(String limit, Outcome outcome, long sinceNanos) {
      return since(sinceNanos).stream().anyMatch(call -> call.limit().equals(limit) && call.outcome() == outcome);
    }

    @Override
    public void close() {
      running.set(false);
      for (Thread thread : threads) {
        try {
          thread.join(10_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  @Test
  void killedMidLoad_policiesDecideWithinTheTimeoutAndRedisDecidesAgainOnceBack() throws Exception {
    // a kill closes the connection: Lettuce notices at once and refuses commands while it
    // reconnects, so the policies take over without waiting for a timeout
    RateLimiter limiter = limiter();
    try (Load load = new Load(limiter, 3)) {
      waiting().atMost(Duration.ofSeconds(10)).until(() -> load.calls.size() > 300);
      assertThat(load.calls).as("on Redis, every bucket empty (first unavailability: %s; last failure: %s)",
          load.firstUnavailable, load.lastFailure).extracting(Call::outcome).containsOnly(Outcome.DENIED);
      List<String> threadsUnderLoad = threadNames();

      long killed = System.nanoTime();
      server.kill();
      // open admits, closed refuses, local decides on a fresh in-memory bucket: admits 5
      Map<String, Outcome> promised = Map.of("open", Outcome.ADMITTED, "closed", Outcome.UNAVAILABLE,
          "local", Outcome.ADMITTED);
      Map<String, Long> firstPolicyDecision = new ConcurrentHashMap<>();
      waiting().atMost(Duration.ofSeconds(5)).until(() -> {
        promised.forEach((limit, outcome) -> load.since(killed).stream()
            .filter(call -> call.limit().equals(limit) && call.outcome() == outcome).findFirst()
            .ifPresent(call -> firstPolicyDecision.putIfAbsent(limit, call.endNanos() - killed)));
        return firstPolicyDecision.size() == 3 && load.since(killed).size() > 600;
      });
      assertThat(firstPolicyDecision.values()).as("ms from the kill to each policy's first decision")
          .allSatisfy(nanos -> assertThat(nanos / 1_000_000).isLessThanOrEqualTo(TIMEOUT.toMillis() + SLACK_MILLIS));
      List<Call> during = load.since(killed);
      assertThat(during).as("no call waits longer than the command timeout")
          .allSatisfy(call -> assertThat(call.millis()).isLessThanOrEqualTo(TIMEOUT.toMillis() + SLACK_MILLIS));
      assertThat(during).filteredOn(call -> call.limit().equals("open")).extracting(Call::outcome)
          .as("open: admitted, or denied by Redis before the kill was noticed").doesNotContain(Outcome.UNAVAILABLE);
      assertThat(during).extracting(Call::outcome).doesNotContain(Outcome.FAILED);
      assertThat(limiter.storeAvailable()).isFalse();
      // reconnecting may start idle threads of Lettuce's fixed-size pools; nothing else, and
      // nothing per request or per attempt
      int threadsDown = threads();
      assertThat(threadNames()).as("threads while Redis is down")
          .allMatch(name -> threadsUnderLoad.contains(name) || name.startsWith("lettuce-"));
      waiting().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> threads() <= threadsDown);

      server.restart(); // empty: every bucket full again on Redis
      long restarted = System.nanoTime();
      // once Redis answers, every limit consumes its (fresh) bucket there and is denied again
      waiting().atMost(Duration.ofSeconds(10)).until(() -> limiter.storeAvailable()
          && load.saw("open", Outcome.DENIED, restarted) && load.saw("closed", Outcome.DENIED, restarted)
          && server.call("EXISTS", "ratelimit:{local:k}").equals(1L)
          && limiter.named("local").check("k", 0).remaining() < 1e-3);
      long back = System.nanoTime();
      waiting().atMost(Duration.ofSeconds(5)).until(() -> load.since(back).size() > 300);
      assertThat(load.since(back)).as("decided on Redis again: its buckets are empty once more")
          .extracting(Call::outcome).containsOnly(Outcome.DENIED);
    } finally {
      limiter.close();
    }
    waiting().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(threads())
        .as("threads after close: %s", threadNames()).isLessThanOrEqualTo(threadsBefore));
  }

  @Test
  void hungRedis_failsFastByTheCommandTimeoutThenSkipsTheStoreUntilItAnswers() {
    RateLimiter limiter = limiter();
    try {
      server.pause();
      long start = System.nanoTime();
      assertThatThrownBy(() -> limiter.named("closed").limit("k", 1)).isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("Redis at " + server.uri() + " unavailable")
          .hasMessageContaining("500 ms");
      long waited = (System.nanoTime() - start) / 1_000_000;
      assertThat(waited).isBetween(TIMEOUT.toMillis() - 20, TIMEOUT.toMillis() + SLACK_MILLIS);

      long next = System.nanoTime();
      assertThat(limiter.named("open").limit("k", 1).allowed()).isTrue();
      assertThat(limiter.named("local").limit("k", 1).allowed()).isTrue();
      assertThatThrownBy(() -> limiter.named("closed").limit("k", 1)).isInstanceOf(StoreUnavailableException.class);
      assertThat((System.nanoTime() - next) / 1_000_000).as("the store is skipped while it is down")
          .isLessThan(TIMEOUT.toMillis());

      server.resume();
      waiting().atMost(Duration.ofSeconds(10)).until(() -> {
        try {
          return !limiter.named("closed").limit("k", 1).allowed() && limiter.storeAvailable();
        } catch (StoreUnavailableException stillDown) {
          return false;
        }
      });
      assertThat(limiter.named("open").limit("k", 1).allowed()).as("decided on Redis again: empty").isFalse();
    } finally {
      limiter.close();
    }
    waiting().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(threads())
        .as("threads after close: %s", threadNames()).isLessThanOrEqualTo(threadsBefore));
  }
}

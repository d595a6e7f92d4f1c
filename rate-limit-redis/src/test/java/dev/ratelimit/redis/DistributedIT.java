package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.ManualClock;
import dev.ratelimit.limiter.RateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Several application nodes on one Redis, each with its own Lettuce client and limiter: they
 * make one set of decisions between them, whatever their local clocks say (time is Redis TIME).
 */
class DistributedIT {
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

  /** A node: its own client and connection (the store makes them), its own limiter. */
  private static RateLimiter node(ManualClock clock, String... namesAndSpecs) {
    RedisStore store = RedisStore.builder().uri(server.uri()).commandTimeout(Duration.ofSeconds(5)).build();
    RateLimiter.Builder builder = RateLimiter.builder().store(store).storeFailure(FailurePolicy.CLOSED);
    if (clock != null) {
      builder.clock(clock);
    }
    for (int i = 0; i < namesAndSpecs.length; i += 2) {
      builder.limit(namesAndSpecs[i], namesAndSpecs[i + 1]);
    }
    return builder.build();
  }

  @Test
  void twoNodesWithSeveralThreadsEach_admitExactlyTheCapacityInTotal() throws Exception {
    // 1000 per year: under a thousandth of a unit comes back while the test runs
    try (RateLimiter first = node(null, "api", "token-bucket rate=1000 period=365d");
        RateLimiter second = node(null, "api", "token-bucket rate=1000 period=365d")) {
      int threadsPerNode = 4;
      int callsPerThread = 400; // 3200 calls for 1000 units
      AtomicInteger admitted = new AtomicInteger();
      ExecutorService pool = Executors.newFixedThreadPool(2 * threadsPerNode);
      try {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (RateLimiter node : List.of(first, second)) {
          for (int t = 0; t < threadsPerNode; t++) {
            done.add(pool.submit(() -> {
              start.await();
              for (int i = 0; i < callsPerThread; i++) {
                if (node.named("api").limit("hot", 1).allowed()) {
                  admitted.incrementAndGet();
                }
              }
              return null;
            }));
          }
        }
        start.countDown();
        for (Future<?> future : done) {
          future.get(2, TimeUnit.MINUTES);
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(admitted.get()).isEqualTo(1000);
      assertThat(first.named("api").check("hot", 0).remaining()).isCloseTo(0, within(0.01));
    }
  }

  @Test
  void nodesWhoseClocksDifferByAnHour_agree() {
    long now = System.currentTimeMillis();
    ManualClock early = new ManualClock(now);
    ManualClock late = new ManualClock(now + 3_600_000);
    String[] limits = {"bucket", "token-bucket rate=10 period=1m", "window", "fixed-window rate=10 period=7m",
        "quota", "quota rate=10 cadence=day"};
    try (RateLimiter a = node(early, limits); RateLimiter b = node(late, limits)) {
      for (String name : List.of("bucket", "window", "quota")) {
        assertThat(a.named(name).limit("k", 4).allowed()).isTrue();
        assertThat(b.named(name).limit("k", 6).allowed()).as("%s: b sees what a took", name).isTrue();
        Decision deniedOnA = a.named(name).limit("k", 1);
        Decision deniedOnB = b.named(name).limit("k", 1);
        assertThat(deniedOnA.allowed()).isFalse();
        assertThat(deniedOnB.allowed()).isFalse();
        // the same waits, up to the real time between the two calls (a local clock would put the
        // window or the day elsewhere, an hour apart)
        assertThat(deniedOnB.retryAfterMillis()).as(name).isCloseTo(deniedOnA.retryAfterMillis(), within(250L));
        assertThat(deniedOnB.resetAfterMillis()).as(name).isCloseTo(deniedOnA.resetAfterMillis(), within(250L));
      }
    }
  }
}

package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Operation;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.KeySpace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Leases (docs/design.md §4.3.3) on a real redis-server: nodes with their own store and
 * connection admit from units they took, never more than the limit between them.
 */
class LeaseIT {
  private static final AtomicInteger PREFIXES = new AtomicInteger();
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

  /** A node: its own store, client and connection. */
  private static RedisStore node(String prefix) {
    return RedisStore.builder().uri(server.uri()).keyPrefix(prefix).commandTimeout(Duration.ofSeconds(5)).build();
  }

  private static String prefix() {
    return "lease" + PREFIXES.incrementAndGet();
  }

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket", "gcra"})
  void twoNodesWithSixteenThreadsEach_admitExactlyTheLimitBetweenThem(String kind) throws Exception {
    // 1000 per year: under a thousandth of a unit comes back while the test runs
    Limit limit = Limit.parse(kind + " rate=1000 period=365d lease=50");
    String prefix = prefix();
    try (RedisStore first = node(prefix); RedisStore second = node(prefix)) {
      List<KeySpace> nodes = List.of(first.bind("api", limit), second.bind("api", limit));
      assertThat(nodes).allMatch(LeasedKeySpace.class::isInstance);
      int threadsPerNode = 16;
      int callsPerThread = 150; // 4800 calls for 1000 units
      AtomicInteger[] admitted = {new AtomicInteger(), new AtomicInteger()};
      ExecutorService pool = Executors.newFixedThreadPool(2 * threadsPerNode);
      try {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int n = 0; n < 2; n++) {
          KeySpace node = nodes.get(n);
          AtomicInteger mine = admitted[n];
          for (int t = 0; t < threadsPerNode; t++) {
            done.add(pool.submit(() -> {
              start.await();
              for (int i = 0; i < callsPerThread; i++) {
                if (node.apply("hot", Operation.LIMIT, 1, 0).allowed()) {
                  mine.incrementAndGet();
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
      int whileLeased = admitted[0].get() + admitted[1].get();
      assertThat(whileLeased).as("over-admission: %d", Math.max(0, whileLeased - 1000)).isLessThanOrEqualTo(1000);
      assertThat(admitted[0].get()).as("the first node leased and admitted").isPositive();
      assertThat(admitted[1].get()).as("the second node leased and admitted").isPositive();

      // the leases go back; a third node without leases then finds exactly what was not admitted
      ((LeasedKeySpace) nodes.get(0)).giveAllBack().get(10, TimeUnit.SECONDS);
      ((LeasedKeySpace) nodes.get(1)).giveAllBack().get(10, TimeUnit.SECONDS);
      try (RedisStore third = node(prefix)) {
        KeySpace plain = third.bind("api", Limit.parse(kind + " rate=1000 period=365d"));
        int after = 0;
        while (plain.apply("hot", Operation.LIMIT, 1, 0).allowed()) {
          after++;
        }
        assertThat(whileLeased + after).isEqualTo(1000);
      }
    }
  }

  @Test
  void aLeaseIsAdmittedLocally_andWhatIsLeftGoesBackWhenItExpires() {
    // lifetime: a hundredth of the refill time, at most 1 s
    Limit limit = Limit.parse("token-bucket rate=1000 period=365d lease=50");
    String prefix = prefix();
    try (RedisStore leasing = node(prefix); RedisStore observer = node(prefix)) {
      KeySpace leased = leasing.bind("api", limit);
      KeySpace plain = observer.bind("api", Limit.parse("token-bucket rate=1000 period=365d"));
      assertThat(((LeasedKeySpace) leased).lifetime()).isEqualTo(1000);
      for (int i = 0; i < 5; i++) {
        assertThat(leased.apply("k", Operation.LIMIT, 1, 0).allowed()).isTrue();
      }
      // the first alone, then a lease of 1 + 50; however the five fell on leases (one, or two if
      // the first expired in between), every unit not admitted goes back: 995 once none is held
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
          assertThat(plain.apply("k", Operation.CHECK, 0, 0).remaining()).isCloseTo(995, within(0.01))); // refill: 3e-5/s
    }
  }

  @Test
  void aRequestTheLeaseCantCover_isDecidedByRedisExactlyAsWithoutLeases() {
    ManualClock clock = new ManualClock(1_700_000_000_000L);
    String prefix = prefix();
    try (RedisStore store = RedisStore.builder().uri(server.uri()).keyPrefix(prefix).clock(clock).build()) {
      KeySpace leased = store.bind("api", Limit.parse("gcra rate=10 period=1h lease=5"));
      KeySpace plain = store.bind("api", Limit.parse("gcra rate=10 period=1h"));
      int admitted = 0;
      Decision last;
      while ((last = leased.apply("k", Operation.LIMIT, 1, 0)).allowed()) {
        admitted++;
        assertThat(admitted).isLessThanOrEqualTo(10);
      }
      // 1 alone, 1 + 5 leased, then 3 left in Redis: fewer than 1 + 5, so each goes alone, no lease parked
      assertThat(admitted).isEqualTo(10);
      Decision inRedis = plain.apply("k", Operation.LIMIT, 1, 0);
      assertThat(inRedis.allowed()).isFalse();
      assertThat(last).isEqualTo(inRedis); // the same denial, wait and reset, at the same instant
      assertThat(last.retryAfterMillis()).isEqualTo(360_000);
    }
  }

  @Test
  void whileRedisIsDown_leasedUnitsAreStillAdmitted_andTheNextTakeFailsAsUnavailable() {
    String prefix = prefix();
    try (RedisStore store = RedisStore.builder().uri(server.uri()).keyPrefix(prefix)
        .commandTimeout(Duration.ofMillis(300)).build()) {
      KeySpace leased = store.bind("api", Limit.parse("token-bucket rate=1000 period=365d lease=20"));
      // a key's first request goes alone; the second takes 1 + 20
      assertThat(leased.apply("k", Operation.LIMIT, 1, 0).allowed()).isTrue();
      assertThat(leased.apply("k", Operation.LIMIT, 1, 0).allowed()).isTrue();
      server.pause();
      try {
        for (int i = 0; i < 20; i++) {
          assertThat(leased.apply("k", Operation.LIMIT, 1, 0).allowed()).isTrue(); // units already taken
        }
        // the limiter's failure policy decides this one (open, closed, local)
        assertThatThrownBy(() -> leased.apply("k", Operation.LIMIT, 1, 0)).isInstanceOf(StoreUnavailableException.class);
      } finally {
        server.resume();
      }
    }
  }

  @Test
  void whileRedisIsDown_theLimitsFailurePolicyDecidesWhatTheLeaseCantCover() {
    String prefix = prefix();
    RedisStore store = RedisStore.builder().uri(server.uri()).keyPrefix(prefix).commandTimeout(Duration.ofMillis(300))
        .build();
    try (RateLimiter limiter = RateLimiter.builder().store(store)
        .limit("open", "token-bucket rate=1000 period=365d lease=20 failure=open")
        .limit("closed", "token-bucket rate=1000 period=365d lease=20 failure=closed").build()) {
      for (int i = 0; i < 2; i++) { // alone, then 1 + 20
        assertThat(limiter.named("open").limit("k", 1).allowed()).isTrue();
        assertThat(limiter.named("closed").limit("k", 1).allowed()).isTrue();
      }
      server.pause();
      try {
        for (int i = 0; i < 20; i++) {
          assertThat(limiter.named("closed").limit("k", 1).allowed()).isTrue(); // leased before the outage
        }
        assertThatThrownBy(() -> limiter.named("closed").limit("k", 1)).isInstanceOf(StoreUnavailableException.class);
        Decision open = limiter.named("open").limit("k", 1);
        assertThat(open.allowed()).isTrue();
        assertThat(open.remaining()).isEqualTo(1000); // open: remaining = limit = capacity (§4.4)
      } finally {
        server.resume();
      }
    }
  }

  @Test
  void asynchronousRequests_shareLeasesWithoutOverAdmitting() throws Exception {
    String prefix = prefix();
    try (RedisStore store = node(prefix)) {
      KeySpace leased = store.bind("api", Limit.parse("token-bucket rate=300 period=365d lease=25"));
      List<CompletableFuture<Decision>> decisions = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        decisions.add(leased.applyAsync("k", Operation.LIMIT, 1, 0).toCompletableFuture());
      }
      long admitted = 0;
      for (CompletableFuture<Decision> decision : decisions) {
        if (decision.get(30, TimeUnit.SECONDS).allowed()) {
          admitted++;
        }
      }
      assertThat(admitted).isLessThanOrEqualTo(300);
      ((LeasedKeySpace) leased).giveAllBack().get(10, TimeUnit.SECONDS);
      double left = store.bind("api", Limit.parse("token-bucket rate=300 period=365d"))
          .apply("k", Operation.CHECK, 0, 0).remaining();
      assertThat(admitted + Math.floor(left + 1e-6)).isEqualTo(300);
    }
  }

  /** A take goes to Redis; the units leased were counted there already, so they stay spendable here. */
  @Test
  void aTakeGoesToRedis_andTheLeaseHeldStaysSpendable() {
    String prefix = prefix();
    try (RedisStore store = node(prefix)) {
      KeySpace leased = store.bind("api", Limit.parse("token-bucket rate=100 period=365d lease=10"));
      KeySpace plain = store.bind("api", Limit.parse("token-bucket rate=100 period=365d"));
      assertThat(leased.apply("k", Operation.LIMIT, 1, 0).allowed()).isTrue();
      assertThat(leased.apply("k", Operation.LIMIT, 1, 0).allowed()).isTrue();
      assertThat(plain.apply("k", Operation.CHECK, 0, 0).remaining()).as("1, then 1 + 10").isCloseTo(88, within(0.01));
      assertThat(leased.apply("k", Operation.TAKE, 100, 0).remaining()).as("in Redis").isCloseTo(-12, within(0.01));
      for (int i = 0; i < 10; i++) {
        assertThat(leased.apply("k", Operation.LIMIT, 1, 0).allowed()).as("from the lease").isTrue();
      }
      assertThat(leased.apply("k", Operation.LIMIT, 1, 0).allowed()).as("the lease spent, Redis in debt").isFalse();
      assertThat(plain.apply("k", Operation.CHECK, 0, 0).remaining()).isCloseTo(-12, within(0.01));
    }
  }

  @Test
  void resetDropsTheLease_andAllOrNothingCallsDecideInRedis() {
    String prefix = prefix();
    try (RedisStore store = node(prefix)) {
      KeySpace leased = store.bind("api", Limit.parse("token-bucket rate=100 period=365d lease=10"));
      KeySpace plain = store.bind("api", Limit.parse("token-bucket rate=100 period=365d"));
      assertThat(leased.apply("k", Operation.LIMIT, 1, 0).allowed()).isTrue();
      assertThat(plain.apply("k", Operation.CHECK, 0, 0).remaining()).as("a first request goes alone")
          .isCloseTo(99, within(0.01));
      assertThat(leased.apply("k", Operation.LIMIT, 1, 0).allowed()).isTrue();
      assertThat(plain.apply("k", Operation.CHECK, 0, 0).remaining()).as("then 1 + 10").isCloseTo(88, within(0.01));
      assertThat(leased.apply("k", Operation.LIMIT, 1, 0).allowed()).isTrue();
      assertThat(plain.apply("k", Operation.CHECK, 0, 0).remaining()).as("from the lease").isCloseTo(88, within(0.01));
      leased.reset("k");
      assertThat(plain.apply("k", Operation.CHECK, 0, 0).remaining()).isCloseTo(100, within(0.01));
      // the reset key's lease is gone: it starts over, alone and then with a new lease
      assertThat(leased.apply("k", Operation.LIMIT, 1, 0).allowed()).isTrue();
      assertThat(leased.apply("k", Operation.LIMIT, 1, 0).allowed()).isTrue();
      assertThat(plain.apply("k", Operation.CHECK, 0, 0).remaining()).isCloseTo(88, within(0.01));
      List<Decision> both = store.limitAll(List.of(
          new dev.ratelimit.store.RateLimitStore.Charge(leased, "k", 2), new dev.ratelimit.store.RateLimitStore.Charge(leased, "j", 3)));
      assertThat(both).allMatch(Decision::allowed);
      assertThat(plain.apply("k", Operation.CHECK, 0, 0).remaining()).isCloseTo(86, within(0.01));
      assertThat(plain.apply("j", Operation.CHECK, 0, 0).remaining()).isCloseTo(97, within(0.01));
    }
  }
}

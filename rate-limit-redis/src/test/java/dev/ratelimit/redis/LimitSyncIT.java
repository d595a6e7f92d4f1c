package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Limit;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.limiter.RateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Runtime changes shared by nodes on one real Redis (docs/design.md §4.3.2): each node its own client
 * and limiter. Most tests poll by hand ({@link LimitSync#poll}) on nodes whose interval never
 * comes within the test, so that what a poll does is seen exactly; one test lets the poller run.
 */
class LimitSyncIT {
  private static final String OLD = "token-bucket rate=3 period=1h";
  private static final String NEW = "token-bucket rate=5 period=1h";
  private static final Duration NEVER = Duration.ofHours(1);
  private static RedisServer server;

  private final List<RateLimiter> nodes = new ArrayList<>();
  private final List<LogRecord> logged = new ArrayList<>();
  private final Logger log = Logger.getLogger("dev.ratelimit.redis");
  private final Handler capture = new Handler() {
    @Override
    public void publish(LogRecord record) {
      synchronized (logged) {
        logged.add(record);
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

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

  @BeforeEach
  void listen() {
    server.command("FLUSHALL");
    log.addHandler(capture);
  }

  @AfterEach
  void closeNodes() {
    log.removeHandler(capture);
    nodes.forEach(RateLimiter::close);
  }

  /** A node with {@code api} (and its {@code pro} plan) whose limits sync every {@code interval}. */
  private RateLimiter node(Duration interval) {
    RedisStore store = RedisStore.builder().uri(server.uri()).commandTimeout(Duration.ofSeconds(2))
        .syncInterval(interval).build();
    RateLimiter limiter = RateLimiter.builder().store(store).storeFailure(FailurePolicy.CLOSED)
        .limit("api", OLD).limit("login", "fixed-window rate=2 period=1h")
        .onPlan("pro").limit("api", "token-bucket rate=30 period=1h").build();
    nodes.add(limiter);
    store.syncLimits(limiter);
    return limiter;
  }

  private static void poll(RateLimiter node) {
    ((RedisStore) node.store()).limitSync().poll();
  }

  private List<String> warnings() {
    synchronized (logged) {
      return logged.stream().filter(r -> r.getLevel() == java.util.logging.Level.WARNING)
          .map(r -> java.text.MessageFormat.format(r.getMessage(), r.getParameters())).toList();
    }
  }

  @Test
  void replaceOnOneNode_isInForceOnTheOtherAfterItsPoll_whichDecidesByItExactly() {
    RateLimiter a = node(NEVER);
    RateLimiter b = node(NEVER);
    assertThat(a.named("api").replace(NEW)).isEqualTo(Limit.parse(OLD));
    assertThat(b.limits().get("api")).as("not before b polls").isEqualTo(Limit.parse(OLD));

    poll(b);

    assertThat(b.limits().get("api")).isEqualTo(Limit.parse(NEW));
    int admitted = 0;
    for (int i = 0; i < 8; i++) {
      if (b.named("api").limit("k", 1).allowed()) {
        admitted++;
      }
    }
    assertThat(admitted).as("the new capacity, on b").isEqualTo(5);
    assertThat(a.named("api").limit("k", 1).allowed()).as("a shares the key's state under the same limit").isFalse();
    String version = (String) server.call("HGET", "ratelimit:limits", "~version");
    assertThat((String) server.call("HGET", "ratelimit:limits", "api")).startsWith(version + " ").endsWith(" " + NEW);
    poll(a);
    assertThat(server.call("HGET", "ratelimit:limits", "~version")).as("what b put in force was not published back")
        .isEqualTo(version);
  }

  @Test
  void planChange_reachesTheOtherNode_andOnlyThatPlan() {
    RateLimiter a = node(NEVER);
    RateLimiter b = node(NEVER);
    a.named("api").onPlan("pro").replace(Limit.parse("token-bucket rate=60 period=1h"));
    poll(b);
    assertThat(b.plans().get("api").get("pro")).isEqualTo(Limit.parse("token-bucket rate=60 period=1h"));
    assertThat(b.limits().get("api")).isEqualTo(Limit.parse(OLD));
    assertThat(b.named("api").onPlan("pro").limit("k", 60).allowed()).isTrue();
    assertThat(b.named("api").onPlan("pro").limit("k", 1).allowed()).as("the new plan's capacity, spent").isFalse();
    assertThat(b.named("api").limit("k", 1).allowed())
        .as("one state per key across plans: the 60 used stay used on the default plan, capped by its 3").isFalse();
    assertThat(b.named("api").limit("other", 3).allowed()).as("the default plan, unchanged").isTrue();
    assertThat(b.named("api").limit("other", 1).allowed()).isFalse();
  }

  @Test
  void thePoller_bringsAChangeWithinTheDocumentedBound() {
    Duration interval = Duration.ofMillis(200);
    // max(interval, a command timeout) + 2 command timeouts (docs/design.md §4.3.2); the nodes' timeout is 2 s
    Duration bound = Duration.ofSeconds(8);
    RateLimiter a = node(interval);
    RateLimiter b = node(interval);
    a.named("api").replace(NEW);
    long replaced = System.nanoTime();
    await().atMost(bound).pollInterval(Duration.ofMillis(10)).until(() -> b.limits().get("api").equals(Limit.parse(NEW)));
    assertThat(Duration.ofNanos(System.nanoTime() - replaced)).isLessThanOrEqualTo(bound);
    assertThat(b.named("api").limit("k", 5).allowed()).isTrue();
    assertThat(b.named("api").limit("k", 1).allowed()).isFalse();
  }

  @Test
  void twoNodesChangingOneLimitAtOnce_allEndOnTheLastWrite() throws Exception {
    RateLimiter a = node(NEVER);
    RateLimiter b = node(NEVER);
    a.named("login").replace("fixed-window rate=7 period=1h");
    long first = Long.parseLong((String) server.call("HGET", "ratelimit:limits", "~version"));
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        RateLimiter node = t % 2 == 0 ? a : b;
        int thread = t;
        done.add(pool.submit(() -> {
          start.await();
          for (int i = 1; i <= 25; i++) {
            node.named("api").replace("token-bucket rate=" + (thread * 100 + i) + " period=1h");
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> future : done) {
        future.get(1, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    String version = Long.toString(first + 100);
    assertThat(server.call("HGET", "ratelimit:limits", "~version")).as("every change counted once").isEqualTo(version);
    poll(a);
    poll(b);
    String last = (String) server.call("HGET", "ratelimit:limits", "api");
    assertThat(last).startsWith(version + " ");
    Limit written = Limit.parse(last.split(" ", 3)[2]);
    assertThat(a.limits().get("api")).isEqualTo(written);
    assertThat(b.limits().get("api")).isEqualTo(written);
    assertThat(server.call("HGET", "ratelimit:limits", "~version")).as("polls publish nothing").isEqualTo(version);
    assertThat(b.limits().get("login")).isEqualTo(Limit.parse("fixed-window rate=7 period=1h"));
  }

  @Test
  void changesOfAnotherValueFormat_areNotPutInForce_andAReplaceFailsRatherThanWriteAmongThem() {
    RateLimiter b = node(NEVER);
    server.call("HSET", "ratelimit:limits", "~format", "2", "api", "2:1 0 " + NEW);
    server.call("HINCRBY", "ratelimit:limits", "~version", "1");

    poll(b);
    poll(b);

    assertThat(b.limits().get("api")).as("the limit in force, kept").isEqualTo(Limit.parse(OLD));
    assertThat(warnings()).singleElement().satisfies(w -> assertThat(w)
        .contains("ratelimit:limits", "value format \"2\"", "reads format 1 only"));
    assertThatThrownBy(() -> b.named("api").replace(NEW)).isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("value format 2").hasMessageContaining("writes format 1");
    assertThat(b.limits().get("api")).isEqualTo(Limit.parse(OLD));
    assertThat(server.call("HGET", "ratelimit:limits", "api")).as("nothing written").isEqualTo("2:1 0 " + NEW);
  }

  @Test
  void aChangeWritesTheValueFormat_whichNoNodeTakesForALimit() {
    RateLimiter a = node(NEVER);
    a.named("api").replace(NEW);
    assertThat(server.call("HGET", "ratelimit:limits", "~format")).isEqualTo("1");
    poll(a);
    assertThat(warnings()).as("~format names no limit, and is not logged as one").isEmpty();
  }

  @Test
  void aSpecThisNodeCannotRead_orALimitItLacks_isIgnoredAndLoggedOnce_whileTheOthersApply() {
    RateLimiter b = node(NEVER);
    server.call("HSET", "ratelimit:limits", "api", "1 0 token-bucket rate=banana period=1h");
    server.call("HSET", "ratelimit:limits", "search", "2 0 " + NEW);
    server.call("HSET", "ratelimit:limits", "login", "3 0 fixed-window rate=4 period=1h");
    server.call("HSET", "ratelimit:limits", "api@pro", "no version, no spec");
    server.call("HINCRBY", "ratelimit:limits", "~version", "3");

    poll(b);
    server.call("HINCRBY", "ratelimit:limits", "~version", "1");
    poll(b);

    assertThat(b.limits().get("api")).isEqualTo(Limit.parse(OLD));
    assertThat(b.plans().get("api").get("pro")).isEqualTo(Limit.parse("token-bucket rate=30 period=1h"));
    assertThat(b.limits().get("login")).isEqualTo(Limit.parse("fixed-window rate=4 period=1h"));
    assertThat(warnings()).hasSize(3);
    assertThat(warnings()).anySatisfy(w -> assertThat(w).contains("\"api\"", "rate=banana"))
        .anySatisfy(w -> assertThat(w).contains("1 fields", "\"search\"", "name no limit or plan of this node"))
        .anySatisfy(w -> assertThat(w).contains("\"api@pro\"", "no version, no spec"));
  }

  @Test
  void aNodeStartedAfterAChange_decidesByItFromItsFirstCall_untilTheChangeIsRemovedFromRedis() {
    RateLimiter a = node(NEVER);
    a.named("api").replace(NEW);
    a.close();
    nodes.remove(a);

    RateLimiter restarted = node(NEVER);
    assertThat(restarted.limits().get("api")).as("no poll needed").isEqualTo(Limit.parse(NEW));

    // going back to the configured spec: remove the field and count the change
    server.call("HDEL", "ratelimit:limits", "api");
    server.call("HINCRBY", "ratelimit:limits", "~version", "1");
    poll(restarted);
    assertThat(restarted.limits().get("api")).isEqualTo(Limit.parse(OLD));

    // or every change at once: delete the hash
    restarted.named("login").replace("fixed-window rate=9 period=1h");
    server.command("DEL", "ratelimit:limits");
    poll(restarted);
    assertThat(restarted.limits().get("login")).isEqualTo(Limit.parse("fixed-window rate=2 period=1h"));
  }

  @Test
  void aChangeAfterTheHashWasLost_isNotTakenForOneSeenBefore() {
    RateLimiter a = node(NEVER);
    RateLimiter b = node(NEVER);
    a.named("api").replace(NEW);
    poll(b);
    server.command("FLUSHALL"); // b does not poll while the hash is gone
    a.named("login").replace("fixed-window rate=9 period=1h");
    poll(b);
    assertThat(b.limits().get("login")).isEqualTo(Limit.parse("fixed-window rate=9 period=1h"));
    assertThat(b.limits().get("api")).as("the lost change is gone on b too").isEqualTo(Limit.parse(OLD));
  }

  @Test
  void aReplaceRedisDoesNotTake_failsAndChangesNothing() {
    RedisServer own = RedisServer.start();
    RedisStore store = RedisStore.builder().uri(own.uri()).commandTimeout(Duration.ofMillis(500)).syncInterval(NEVER)
        .build();
    try (RateLimiter limiter = RateLimiter.builder().store(store).limit("api", OLD).build()) {
      store.syncLimits(limiter);
      own.close();
      assertThatThrownBy(() -> limiter.named("api").replace(NEW)).isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("api");
      assertThat(limiter.limits().get("api")).isEqualTo(Limit.parse(OLD));
    } finally {
      own.close();
    }
  }

  @Test
  void closingTheStore_endsThePollingThread() {
    Set<Thread> before = syncThreads();
    RateLimiter a = node(Duration.ofMillis(20));
    await().atMost(Duration.ofSeconds(10)).until(() -> !syncThreads().stream().allMatch(before::contains));
    Set<Thread> own = syncThreads().stream().filter(t -> !before.contains(t)).collect(Collectors.toSet());
    assertThat(own).hasSize(1);

    a.close();
    nodes.remove(a);

    assertThat(own).allSatisfy(t -> assertThat(t.isAlive()).as("ended when close returned").isFalse());
  }

  @Test
  void syncingTwice_isRefused() {
    RateLimiter a = node(NEVER);
    assertThatThrownBy(() -> ((RedisStore) a.store()).syncLimits(a)).isInstanceOf(IllegalStateException.class);
  }

  private static Set<Thread> syncThreads() {
    return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("ratelimit-redis-sync"))
        .collect(Collectors.toSet());
  }
}

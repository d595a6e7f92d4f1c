package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Limit;
import dev.ratelimit.contract.LogLines;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.KeySpace;
import dev.ratelimit.store.RateLimitStore;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The runtime-change hash written by someone hostile (docs/design.md §4.3.2), on a real Redis: a
 * value or a field name of 20 MB, more fields than the bound, binary garbage, forged log lines, a
 * field whose change throws an {@link Error}, a poll that throws one. Each time no huge value
 * crosses the wire (Redis's own count of the bytes it sent), each log line is one line of bounded
 * size, and a valid change still reaches the node.
 */
class LimitSyncHostileIT {
  private static final String OLD = "token-bucket rate=3 period=1h";
  private static final String LOGIN = "fixed-window rate=2 period=1h";
  private static final Duration NEVER = Duration.ofHours(1);
  private static final int MB = 1024 * 1024;
  /** Far above what a poll of this node's fields sends (a few hundred bytes), far below a huge value. */
  private static final long FEW_BYTES = 64 * 1024;
  private static RedisServer server;
  /** For the hostile writes: Lettuce waits up to a minute, where a loaded machine may take seconds to build 20 MB. */
  private static RedisCommands<String, String> writer;

  private final List<AutoCloseable> closing = new ArrayList<>();
  private LogLines log;

  @BeforeAll
  static void startRedis() {
    server = RedisServer.start();
    writer = server.connect(StringCodec.UTF8).sync();
  }

  @AfterAll
  static void stopRedis() {
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void capture() {
    server.command("FLUSHALL");
    log = LogLines.capture("dev.ratelimit.redis");
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable each : closing) {
      each.close();
    }
    log.close();
  }

  private RedisStore store(Duration interval) {
    // a generous timeout: these tests count bytes and lines, never time, on a machine that may be loaded
    return RedisStore.builder().uri(server.uri()).commandTimeout(Duration.ofSeconds(10)).syncInterval(interval).build();
  }

  private RateLimiter limiter(RateLimitStore store) {
    RateLimiter limiter = RateLimiter.builder().store(store).storeFailure(FailurePolicy.CLOSED).limit("api", OLD)
        .limit("login", LOGIN).onPlan("pro").limit("api", "token-bucket rate=30 period=1h").build();
    closing.add(limiter);
    return limiter;
  }

  /** A node syncing its limits, polled by hand. */
  private RateLimiter node() {
    RedisStore store = store(NEVER);
    RateLimiter limiter = limiter(store);
    store.syncLimits(limiter);
    return limiter;
  }

  private static void poll(RateLimiter node) {
    ((RedisStore) node.store()).limitSync().poll();
  }

  /** Writes in Redis without sending the value over the wire: {@code field} and {@code value} are Lua expressions. */
  private static void hset(String field, String value) {
    inRedis("redis.call('HSET', KEYS[1], " + field + ", " + value + ")");
  }

  /** Runs {@code lua} on the hash, {@code KEYS[1]}. */
  private static void inRedis(String lua, String... args) {
    writer.eval(lua, ScriptOutputType.STATUS, new String[] {"ratelimit:limits"}, args);
  }

  private static void counted() {
    server.call("HINCRBY", "ratelimit:limits", "~version", "1");
  }

  /** The bytes Redis has sent to all its clients ({@code INFO stats}). */
  private static long sentBytes() {
    String stats = (String) server.call("INFO", "stats");
    for (String line : stats.split("\r?\n")) {
      if (line.startsWith("total_net_output_bytes:")) {
        return Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
      }
    }
    throw new IllegalStateException("no total_net_output_bytes in INFO stats");
  }

  /** Polls, and returns how many bytes Redis sent meanwhile (the poll's reply, and one INFO's). */
  private static long bytesRead(RateLimiter node) {
    long before = sentBytes();
    poll(node);
    return sentBytes() - before;
  }

  private List<String> warnings() {
    return log.at(Level.WARNING);
  }

  private void assertEveryLineSafe() {
    assertThat(log.all()).isNotEmpty().allSatisfy(line -> assertThat(LogLines.isSafe(line))
        .as("one line of bounded size: %s", line.length() > 300 ? line.substring(0, 300) + "..." : line).isTrue());
  }

  @Test
  void aTwentyMegabyteValue_isNeverRead_isRefusedInOneLineNamingTheField_andTheOtherFieldsApply() {
    RateLimiter node = node();
    String head = "1 0 token-bucket rate=1 period=1h ";
    hset("'api'", "'" + head + "' .. string.rep('x', 20 * 1024 * 1024)");
    hset("'login'", "'2 0 fixed-window rate=4 period=1h'");
    counted();

    assertThat(bytesRead(node)).isLessThan(FEW_BYTES);
    assertThat(node.limits().get("api")).isEqualTo(Limit.parse(OLD));
    assertThat(node.limits().get("login")).isEqualTo(Limit.parse("fixed-window rate=4 period=1h"));
    assertThat(warnings()).singleElement().asString()
        .contains("\"api\"", Integer.toString(20 * MB + head.length()), "more than the 4096", "not read");

    counted();
    assertThat(bytesRead(node)).isLessThan(FEW_BYTES);
    assertThat(warnings()).as("said once per field and value, not at each change").hasSize(1);
    assertEveryLineSafe();
  }

  @Test
  void aTwentyMegabyteFieldName_isNeverReadWhole_andListedCut() {
    RateLimiter node = node();
    hset("'\\n2026-01-01 WARN FORGED ' .. string.rep('n', 20 * 1024 * 1024)", "'1 0 " + OLD + "'");
    hset("'login'", "'2 0 fixed-window rate=4 period=1h'");
    counted();

    assertThat(bytesRead(node)).isLessThan(FEW_BYTES);
    assertThat(node.limits().get("login")).isEqualTo(Limit.parse("fixed-window rate=4 period=1h"));
    assertThat(warnings()).singleElement().asString()
        .contains("ignoring 1 fields", "\"\\n2026-01-01 WARN FORGED nnn", "(cut, " + (20 * MB + "\n2026-01-01 WARN FORGED ".length()) + " bytes)");
    assertEveryLineSafe();
  }

  @Test
  void aCountThatIsNoCount_isNeverRead_isLoggedOnce_andOnceRemoved_changesFlowAgain() {
    RateLimiter node = node();
    RateLimiter other = node();
    hset("'~version'", "string.rep('9', 20 * 1024 * 1024)");

    assertThat(bytesRead(node)).isLessThan(FEW_BYTES);
    assertThat(bytesRead(node)).isLessThan(FEW_BYTES);
    assertThat(warnings()).singleElement().asString().contains("\"~version\"", Integer.toString(20 * MB), "not a count");

    server.call("HDEL", "ratelimit:limits", "~version");
    other.named("api").replace("token-bucket rate=5 period=1h");
    poll(node);
    assertThat(node.limits().get("api")).isEqualTo(Limit.parse("token-bucket rate=5 period=1h"));
    assertEveryLineSafe();
  }

  @Test
  void moreFieldsThanTheBound_takeOneLine_andTheNodesOwnFieldsStillApply() {
    RateLimiter node = node();
    inRedis("for i = 1, tonumber(ARGV[1]) do redis.call('HSET', KEYS[1], 'junk-' .. i, string.rep('j', 100)) end",
        Integer.toString(LimitSync.MAX_FIELDS + 2000));
    hset("'api'", "'1 0 token-bucket rate=5 period=1h'");
    counted();

    assertThat(bytesRead(node)).isLessThan(FEW_BYTES);
    assertThat(node.limits().get("api")).isEqualTo(Limit.parse("token-bucket rate=5 period=1h"));
    assertThat(warnings()).singleElement().asString()
        .contains((LimitSync.MAX_FIELDS + 2002) + " fields", "more than the " + LimitSync.MAX_FIELDS);

    hset("'login'", "'2 0 fixed-window rate=4 period=1h'");
    counted();
    poll(node);
    assertThat(node.limits().get("login")).isEqualTo(Limit.parse("fixed-window rate=4 period=1h"));
    assertThat(warnings()).as("the same fields: no new line").hasSize(1);
    assertEveryLineSafe();
  }

  @Test
  void thousandsOfFieldsNamingNoLimit_takeOneLineListingTheFirstFew() {
    RateLimiter node = node();
    inRedis("for i = 1, 5000 do redis.call('HSET', KEYS[1], 'unknown-' .. i, '1 0 10/1m') end");
    counted();

    poll(node);
    assertThat(warnings()).singleElement().asString().contains("ignoring 5000 fields", "\"unknown-", "and 4990 more");

    hset("'login'", "'2 0 fixed-window rate=4 period=1h'");
    counted();
    poll(node);
    assertThat(node.limits().get("login")).isEqualTo(Limit.parse("fixed-window rate=4 period=1h"));
    assertThat(warnings()).as("the same fields: no new line").hasSize(1);
    assertEveryLineSafe();
  }

  @Test
  void binaryGarbage_andForgedLines_areLoggedEscaped_andNeverStopTheOthers() {
    RateLimiter node = node();
    hset("'api'", "'\\0\\r\\n\\27[31m2026-01-01 WARN FORGED\\255\\254\\192'");
    hset("'api@pro'", "'1 0 token-bucket rate=1\\r\\n2026-01-01 WARN FORGED period=1h'");
    hset("'login'", "'2 0 fixed-window rate=4 period=1h'");
    counted();

    poll(node);

    assertThat(node.limits().get("api")).isEqualTo(Limit.parse(OLD));
    assertThat(node.plans().get("api").get("pro")).isEqualTo(Limit.parse("token-bucket rate=30 period=1h"));
    assertThat(node.limits().get("login")).isEqualTo(Limit.parse("fixed-window rate=4 period=1h"));
    assertThat(warnings()).hasSize(2)
        .anySatisfy(w -> assertThat(w).contains("\"api\"", "\\u0000\\r\\n\\u001b[31m2026-01-01 WARN FORGED"))
        .anySatisfy(w -> assertThat(w).contains("\"api@pro\"", "rate=1\\r\\n2026-01-01 WARN FORGED"));
    assertEveryLineSafe();
  }

  @Test
  void aLongSpecWithinTheBound_givesABoundedLine() {
    RateLimiter node = node();
    String spec = "token-bucket rate=1 period=1h " + "x".repeat(LimitSync.MAX_VALUE_BYTES - 40);
    hset("'api'", "'1 0 " + spec + "'");
    counted();

    poll(node);

    assertThat(node.limits().get("api")).isEqualTo(Limit.parse(OLD));
    assertThat(warnings()).singleElement().asString().contains("\"api\"", "more chars)");
    assertEveryLineSafe();
  }

  @Test
  void aFieldWhoseChangeThrowsAnError_isLoggedOnce_andTheOthersApply() {
    RedisStore redis = store(NEVER);
    RateLimiter node = limiter(new Throwing(redis, Limit.parse("token-bucket rate=13 period=1h")));
    redis.syncLimits(node);
    hset("'api'", "'1 0 token-bucket rate=13 period=1h'");
    hset("'login'", "'2 0 fixed-window rate=4 period=1h'");
    counted();

    redis.limitSync().poll();

    assertThat(node.limits().get("api")).isEqualTo(Limit.parse(OLD));
    assertThat(node.limits().get("login")).isEqualTo(Limit.parse("fixed-window rate=4 period=1h"));
    assertThat(warnings()).singleElement().asString().contains("\"api\"", "java.lang.StackOverflowError", "\"thrown\"");

    hset("'login'", "'3 0 fixed-window rate=6 period=1h'");
    counted();
    redis.limitSync().poll();
    assertThat(node.limits().get("login")).isEqualTo(Limit.parse("fixed-window rate=6 period=1h"));
    assertThat(warnings()).as("said once per field and value").hasSize(1);
    assertEveryLineSafe();
  }

  @Test
  void aPollThatThrowsAnError_isLoggedOnce_andThePollerKeepsRunning_soALaterChangeArrives() {
    StatefulRedisConnection<String, String> connection = server.connect(StringCodec.UTF8);
    closing.add(connection::close);
    AtomicInteger evals = new AtomicInteger();
    // the first poll (in start) answers; the scheduled ones after it throw, three times
    RedisClusterAsyncCommands<String, String> commands = failingEvals(connection.async(), evals, 2, 4);
    RateLimiter node = limiter(new dev.ratelimit.store.InMemoryStore());
    LimitSync sync = LimitSync.start(commands, "ratelimit:limits", 10_000, "127.0.0.1", node, 20);
    closing.add(0, sync);
    RateLimiter other = node();

    await().atMost(Duration.ofSeconds(10)).until(() -> evals.get() > 4);
    other.named("api").replace("token-bucket rate=5 period=1h");

    await().atMost(Duration.ofSeconds(10)).until(() -> node.limits().get("api").equals(Limit.parse("token-bucket rate=5 period=1h")));
    assertThat(warnings()).singleElement().asString().contains("java.lang.OutOfMemoryError", "\"Java heap space\"");
    assertThat(log.at(Level.INFO)).anySatisfy(line -> assertThat(line).contains("again"));
    assertEveryLineSafe();
  }

  /** {@code commands} whose EVALs number {@code from} to {@code to} (counted in {@code evals}) throw {@link OutOfMemoryError}. */
  @SuppressWarnings("unchecked")
  private static RedisClusterAsyncCommands<String, String> failingEvals(RedisClusterAsyncCommands<String, String> commands,
      AtomicInteger evals, int from, int to) {
    return (RedisClusterAsyncCommands<String, String>) Proxy.newProxyInstance(LimitSyncHostileIT.class.getClassLoader(),
        new Class<?>[] {RedisClusterAsyncCommands.class}, (proxy, method, args) -> {
          if (method.getName().equals("eval")) {
            int eval = evals.incrementAndGet();
            if (eval >= from && eval <= to) {
              throw new OutOfMemoryError("Java heap space");
            }
          }
          try {
            return method.invoke(commands, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }

  /** A store whose {@code replacing} throws a {@link StackOverflowError} for one limit, else the Redis store. */
  private record Throwing(RedisStore redis, Limit throwsFor) implements RateLimitStore {
    @Override
    public KeySpace bind(String name, Limit limit) {
      return redis.bind(name, limit);
    }

    @Override
    public KeySpace rebind(KeySpace previous, Limit limit) {
      return redis.rebind(previous, limit);
    }

    @Override
    public KeySpace share(KeySpace sibling, Limit limit) {
      return redis.share(sibling, limit);
    }

    @Override
    public void replacing(String name, String plan, Limit limit) {
      if (limit.equals(throwsFor)) {
        throw new StackOverflowError("thrown");
      }
      redis.replacing(name, plan, limit);
    }

    @Override
    public void close() {
      redis.close();
    }
  }
}

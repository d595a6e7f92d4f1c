package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.limiter.Decisions;
import dev.ratelimit.limiter.NamedLimiter;
import dev.ratelimit.limiter.RateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the Redis store does beyond the contract, on a real server and Redis TIME: keys expire
 * when their state is fresh, scripts come back after a flush, script errors are clear, hot keys
 * share script calls without losing order, all-or-nothing calls are one script.
 */
class RedisStoreBehaviourIT {
  private static final AtomicInteger PREFIXES = new AtomicInteger();
  private static RedisServer server;
  private static RedisStore store;

  @BeforeAll
  static void startRedis() {
    server = RedisServer.start();
    store = RedisStore.builder().uri(server.uri()).commandTimeout(Duration.ofSeconds(5)).build();
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

  /** A limiter on the shared store whose failures surface (no silent fallback), under a new prefix. */
  private static RateLimiter limiter(RedisStore on, String... namesAndSpecs) {
    RateLimiter.Builder builder = RateLimiter.builder().store(on).storeFailure(FailurePolicy.CLOSED);
    for (int i = 0; i < namesAndSpecs.length; i += 2) {
      builder.limit(namesAndSpecs[i], namesAndSpecs[i + 1]);
    }
    return builder.build();
  }

  private static RedisStore storeWithPrefix(String prefix, boolean coalescing) {
    return RedisStore.builder().uri(server.uri()).keyPrefix(prefix).coalescing(coalescing)
        .commandTimeout(Duration.ofSeconds(5)).build();
  }

  private static long pttl(String key) {
    return (Long) server.call("PTTL", key);
  }

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket rate=10 period=1h", "gcra rate=10 period=1h", "fixed-window rate=10 period=1h",
      "sliding-window rate=10 period=1h", "sliding-log rate=10 period=1h", "quota rate=10 cadence=day"})
  void limit_setsTheKeyToExpireWhenItsStateIsFreshAgain(String spec) {
    RateLimiter limiter = limiter(store, "e" + PREFIXES.incrementAndGet(), spec);
    String name = limiter.limits().keySet().iterator().next();
    Decision decision = limiter.named(name).limit("k", 3);
    long ttl = pttl("ratelimit:{" + name + ":k}");
    assertThat(ttl).as("PTTL against resetAfter %s", decision.resetAfterMillis())
        .isBetween(decision.resetAfterMillis() - 2000, decision.resetAfterMillis());
  }

  /**
   * A key that exists keeps its expiry while that is late enough (SET KEEPTTL) and otherwise moves
   * it a slack past resetAfter (state.lua save_state): never earlier than its state is fresh.
   */
  @Test
  void rewrittenKey_expiresNoEarlierThanItsStateIsFreshAndAtMostASlackLater() {
    RateLimiter limiter = limiter(store, "slack", "token-bucket rate=1000 period=1s capacity=1000000");
    String key = "ratelimit:{slack:k}";
    // 100,000 units: fresh in 100 s, expiring exactly then (a new key); 1,000 more: 101 s, past
    // it, so it moves to 101 s + 12.6 s; 5,000 more: 106 s, within that, so it is kept; 20,000
    // more: 126 s, past it, so it moves again
    for (long units : new long[] {100_000, 1_000, 5_000, 20_000}) {
      Decision decision = limiter.named("slack").limit("k", units);
      assertThat(decision.allowed()).isTrue();
      long reset = decision.resetAfterMillis();
      assertThat(pttl(key)).as("PTTL after taking %s, against resetAfter %s", units, reset)
          .isBetween(reset - 2000, reset + Math.max(1000, reset / 8));
    }
  }

  @Test
  void freshState_isDeletedAndExpiryNeverChangesADecision() {
    RateLimiter limiter = limiter(store, "fresh", "token-bucket rate=100 period=1s capacity=10");
    String key = "ratelimit:{fresh:k}";
    limiter.named("fresh").limit("k", 4);
    assertThat(server.call("EXISTS", key)).isEqualTo(1L);
    assertThat(limiter.named("fresh").refund("k", 4).remaining()).isEqualTo(10);
    assertThat(server.call("EXISTS", key)).as("a refund back to full deletes the key").isEqualTo(0L);

    Decision taken = limiter.named("fresh").limit("k", 1);
    assertThat(taken.resetAfterMillis()).isBetween(1L, 10L);
    await().atMost(Duration.ofSeconds(5)).until(() -> server.call("EXISTS", key).equals(0L));
    assertThat(limiter.named("fresh").check("k", 0).remaining()).as("expired: exactly full, as it was anyway").isEqualTo(10);
  }

  @Test
  void scripts_runAgainAfterRedisForgetsThem() {
    // Redis 7 runs them as functions (FCALL; FUNCTION LOAD when the server does not know them)
    RateLimiter limiter = limiter(store, "flush", "token-bucket rate=5 period=1h");
    limiter.named("flush").limit("k", 1);
    server.call("SCRIPT", "FLUSH");
    server.call("FUNCTION", "FLUSH");
    long loads = server.calls("function|load");
    assertThat(limiter.named("flush").limit("k", 1).remaining()).isCloseTo(3, within(1e-3));
    assertThat(server.calls("function|load")).as("Function not found, then FUNCTION LOAD").isEqualTo(loads + 1);
    long calls = scriptCalls();
    assertThat(limiter.named("flush").limit("k", 1).remaining()).isCloseTo(2, within(1e-3));
    assertThat(scriptCalls()).isEqualTo(calls + 1);
    assertThat(server.calls("function|load")).as("loaded again").isEqualTo(loads + 1);
  }

  /**
   * The scripts' arguments come from clients: a limit, a request list or a clock that is not one
   * is an error naming it, by EVAL and by the function library alike, and one kept by its text (the
   * library keeps limits and request lists from call to call) never stands in for another.
   */
  @Test
  void scripts_refuseArgumentsThatAreNotALimitOrRequestsAndKeepEachByItsOwnText() {
    Script script = Script.forKind("token-bucket");
    server.call("FUNCTION", "LOAD", "REPLACE", script.library());
    String tenPerHour = ScriptArguments.limit("token-bucket", "aaaaaaaa", new String[] {"10", "3600000", "10", "-1", "0"},
        true);
    String twoPerHour = ScriptArguments.limit("token-bucket", "bbbbbbbb", new String[] {"2", "3600000", "2", "-1", "0"},
        true);
    for (boolean byFunction : new boolean[] {false, true}) {
      String key = "ratelimit:{hostile:" + byFunction + "}";
      // FCALL function 1 key args..., or EVAL source 1 key args... (the script as EVALSHA runs it)
      java.util.function.Function<String[], Object> run = args -> {
        String[] words = new String[4 + args.length];
        words[0] = byFunction ? "FCALL" : "EVAL";
        words[1] = byFunction ? script.function() : script.source();
        words[2] = "1";
        words[3] = key;
        System.arraycopy(args, 0, words, 4, args.length);
        return server.call(words);
      };
      assertThatThrownBy(() -> run.apply(new String[] {"token-bucket aaaaaaaa 10 3600000", "- l 1 0"}))
          .hasMessageContaining("not a limit: token-bucket aaaaaaaa 10 3600000");
      assertThatThrownBy(() -> run.apply(new String[] {"leaky " + tenPerHour.substring(13), "- l 1 0"}))
          .hasMessageContaining("not a limit: leaky");
      assertThatThrownBy(() -> run.apply(new String[] {tenPerHour, "- l 1"}))
          .hasMessageContaining("not a list of requests: - l 1");
      assertThatThrownBy(() -> run.apply(new String[] {tenPerHour, "- q 1 0"}))
          .hasMessageContaining("unknown operation q");
      assertThatThrownBy(() -> run.apply(new String[] {tenPerHour, "- l 1 0", "soon 1"}))
          .hasMessageContaining("not a clock argument: soon 1");
      // the same request text under two limits: each decided by its own
      assertThat(allowed(run.apply(new String[] {tenPerHour, "- l 2 0"}))).isEqualTo(1);
      server.call("DEL", key);
      assertThat(allowed(run.apply(new String[] {twoPerHour, "- l 2 0"}))).isEqualTo(1);
      assertThat(allowed(run.apply(new String[] {twoPerHour, "- l 2 0"})))
          .as("2 of 2 taken: denied, whatever the same text decided under the other limit").isEqualTo(0);
    }
  }

  /**
   * The first decision's allowed byte in a script's reply (Args.reply), as this test's client
   * reads a bulk string: as UTF-8, which leaves the bytes 0, 1 and 2 as they are.
   */
  private static int allowed(Object reply) {
    assertThat(reply).isInstanceOf(String.class);
    return ((String) reply).charAt(0);
  }

  /**
   * Script calls Redis has run: EVALSHA, EVAL and FCALL (Redis 7 runs the scripts as functions),
   * but for an FCALL that Redis refused as "Function not found" (the library is loaded, and the
   * same call sent again).
   */
  private long scriptCalls() {
    return server.calls("evalsha") + server.calls("eval") + server.calls("fcall") - server.failedCalls("fcall");
  }

  @Test
  void scriptErrors_surfaceAsIllegalStateExceptionsNamingTheScript() {
    RateLimiter limiter = limiter(store, "wrong", "token-bucket rate=5 period=1h");
    server.call("HSET", "ratelimit:{wrong:k}", "someone", "else");
    assertThatThrownBy(() -> limiter.named("wrong").limit("k", 1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Redis at " + server.uri())
        .hasMessageContaining("token-bucket script")
        .hasMessageContaining("WRONGTYPE");
    assertThat(limiter.storeAvailable()).as("a script error is not an outage").isTrue();
  }

  @Test
  void coalescing_decidesConcurrentRequestsOnOneKeyInOrderWithFewerScriptCalls() {
    RateLimiter limiter = limiter(store, "hot", "token-bucket rate=1000 period=365d");
    long before = scriptCalls();
    List<CompletableFuture<Decision>> decisions = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      decisions.add(limiter.named("hot").limitAsync("k", 1).toCompletableFuture());
    }
    for (int i = 0; i < decisions.size(); i++) {
      assertThat(decisions.get(i).join().remaining()).as("request %d, decided in order", i).isCloseTo(999 - i, within(1e-3));
    }
    assertThat(scriptCalls() - before).as("script calls for 500 requests").isLessThan(500).isPositive();
  }

  @Test
  void coalescing_decidesRequestsOnManyKeysInSharedCallsEachKeyInOrder() {
    RateLimiter limiter = limiter(store, "many", "gcra rate=100 period=365d");
    long before = scriptCalls();
    List<CompletableFuture<Decision>> decisions = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      decisions.add(limiter.named("many").limitAsync("user-" + i % 12, 1).toCompletableFuture());
    }
    for (int i = 0; i < decisions.size(); i++) {
      Decision decision = decisions.get(i).join();
      int nth = i / 12; // the nth request on its key
      assertThat(decision.allowed()).as("request %d", i).isEqualTo(nth < 100);
      if (nth < 100) {
        assertThat(decision.remaining()).as("request %d, in order on its key", i).isCloseTo(99 - nth, within(1e-3));
      }
    }
    assertThat(scriptCalls() - before).as("script calls for 600 requests on 12 keys").isLessThan(600);
  }

  @Test
  void withoutCoalescing_everyRequestIsOneScriptCall() {
    try (RedisStore plain = storeWithPrefix("plain", false)) {
      RateLimiter limiter = limiter(plain, "one", "token-bucket rate=1000 period=365d");
      long before = scriptCalls();
      List<CompletableFuture<Decision>> decisions = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        decisions.add(limiter.named("one").limitAsync("k", 1).toCompletableFuture());
      }
      decisions.forEach(CompletableFuture::join);
      assertThat(scriptCalls() - before).isEqualTo(200);
      assertThat(limiter.named("one").check("k", 0).remaining()).isCloseTo(800, within(1e-3));
    }
  }

  @Test
  void limitAll_isOneScriptCallThatWritesNothingWhenDenied() {
    RateLimiter limiter = limiter(store, "burst", "token-bucket rate=5 period=1h", "daily",
        "fixed-window rate=3 period=1d", "log", "sliding-log rate=10 period=1h");
    long before = scriptCalls();
    Decisions first = limiter.limitAll(limiter.named("burst").call("u", 2), limiter.named("daily").call("u", 2),
        limiter.named("log").call("u", 2));
    assertThat(first.allowed()).isTrue();
    assertThat(scriptCalls() - before).isEqualTo(1);

    Decisions denied = limiter.limitAll(limiter.named("burst").call("u", 2), limiter.named("daily").call("u", 2),
        limiter.named("log").call("u", 2));
    assertThat(denied.allowed()).isFalse();
    assertThat(scriptCalls() - before).isEqualTo(2);
    assertThat(limiter.named("burst").check("u", 0).remaining()).as("nothing taken").isCloseTo(3, within(1e-3));
    assertThat(limiter.named("log").check("u", 0).remaining()).as("nothing taken").isCloseTo(8, within(1e-3));
  }

  /**
   * A name bound to another limit (a restart with other numbers, a node not yet changed): a token
   * bucket, GCRA or fixed window carries the keys over by the rule of §2.7, as their values name
   * their writer; another kind starts fresh.
   */
  @Test
  void rebindingANameToAnotherLimit_carriesOverWithinAKind_elseStartsFresh() {
    try (RedisStore shared = storeWithPrefix("rebind", true)) {
      RateLimiter before = limiter(shared, "api", "token-bucket rate=5 period=1h");
      assertThat(before.named("api").limit("k", 5).allowed()).isTrue();
      RateLimiter after = limiter(shared, "api", "token-bucket rate=6 period=1h");
      assertThat(after.named("api").check("k", 0).remaining()).as("another token bucket: 5 used of 6").isCloseTo(1, within(1e-2));
      RateLimiter same = limiter(shared, "api", "token-bucket rate=5 period=1h");
      assertThat(same.named("api").check("k", 0).remaining()).as("the same limit: its state").isCloseTo(0, within(1e-2));
      RateLimiter window = limiter(shared, "api", "sliding-window rate=6 period=1h");
      assertThat(window.named("api").check("k", 0).remaining()).as("another kind: fresh").isEqualTo(6);
    }
  }

  /**
   * A call that read the limit just before a change, decided after the new limit wrote the key:
   * the old limit converts the new one's state instead of reading it as fresh (which admitted up
   * to a whole capacity again). Two limiters on one store stand for the two sides of the race.
   */
  @Test
  void aCallOnTheReplacedLimit_afterTheNewOneWrote_convertsItsState() {
    try (RedisStore shared = storeWithPrefix("stale", true)) {
      RateLimiter old = limiter(shared, "api", "token-bucket rate=10 period=365d");
      RateLimiter changed = limiter(shared, "api", "token-bucket rate=10 period=365d");
      assertThat(old.named("api").limit("k", 6).allowed()).isTrue();
      changed.named("api").replace("token-bucket rate=20 period=365d");
      assertThat(changed.named("api").limit("k", 10).remaining()).as("16 used of 20").isCloseTo(4, within(1e-3));
      assertThat(old.named("api").limit("k", 1).allowed()).as("the old limit reads 16 used, capped by 10").isFalse();
      assertThat(changed.named("api").check("k", 0).remaining()).as("a denial wrote nothing").isCloseTo(4, within(1e-3));
    }
  }
}

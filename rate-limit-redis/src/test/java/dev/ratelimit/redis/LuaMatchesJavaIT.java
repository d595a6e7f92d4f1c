package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.FixedWindow;
import dev.ratelimit.Gcra;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Quota;
import dev.ratelimit.SlidingLog;
import dev.ratelimit.SlidingWindow;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.InMemoryStore;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The Lua scripts against the Java algorithms on random timelines, step by step: random limits
 * of every kind, random operations (limit, check, reserve, refund, reset, take: into debt,
 * sometimes far past its bound) and counts on a few keys, time jumping forward and sometimes back; some steps are bursts of requests at one
 * instant, which the Redis store decides in shared script calls. The in-memory store (keeping
 * every key, as time goes back) and the Redis store, on one manual clock, must make the same
 * decisions: the same admissions, the same remaining units (to 1e-12 of the capacity: the
 * stores' timelines may start at different times, which moves the last bits) and the same waits
 * to the millisecond.
 *
 * <p>Seeds are fixed, so a failure is reproducible; its message names the seed and the step
 * ({@code -Dtrace=true} through failsafe's argLine prints every step).
 */
class LuaMatchesJavaIT {
  private static final long DAY = 86_400_000;
  /** More with -Dtimelines=N (through failsafe: -DargLine=-Dtimelines=N). */
  private static final int TIMELINES_PER_KIND = Integer.getInteger("timelines", 50);
  private static final int STEPS = 60;
  private static final AtomicInteger STORES = new AtomicInteger();
  private static final AtomicLong REQUESTS = new AtomicLong();
  private static RedisServer server;
  private static StatefulRedisConnection<String, String> connection;

  @BeforeAll
  static void startRedis() {
    server = RedisServer.start();
    connection = server.connect(StringCodec.UTF8);
  }

  @AfterAll
  static void stopRedis() {
    if (server != null && REQUESTS.get() > 1000) {
      // Redis 7 runs the scripts as functions: FCALL
      assertThat(server.calls("evalsha") + server.calls("eval") + server.calls("fcall"))
          .as("script calls for %s requests: bursts shared some", REQUESTS.get())
          .isLessThan(REQUESTS.get()).isPositive();
    }
    if (server != null) {
      server.close(); // closes the connection too
    }
  }

  @TestFactory
  Stream<DynamicTest> tokenBucket_luaDecidesAsJava() {
    return timelines("token-bucket", random -> Limit.tokenBucket(rate(random), Duration.ofMillis(period(random))))
        .map(this::test);
  }

  @TestFactory
  Stream<DynamicTest> gcra_luaDecidesAsJava() {
    return timelines("gcra", random -> Limit.gcra(rate(random), Duration.ofMillis(period(random))))
        .map(this::test);
  }

  @TestFactory
  Stream<DynamicTest> fixedWindow_luaDecidesAsJava() {
    return timelines("fixed-window", random -> {
      long start = random.nextInt(3) == 0 ? 0 : random.nextLong(2_000_000_000_000L);
      FixedWindow limit = Limit.fixedWindow(rate(random), Duration.ofMillis(period(random)))
          .withStart(Instant.ofEpochMilli(start));
      return random.nextInt(3) == 0 ? limit.withRandomPhase() : limit;
    }).map(this::test);
  }

  @TestFactory
  Stream<DynamicTest> slidingWindow_luaDecidesAsJava() {
    return timelines("sliding-window", random -> {
      int buckets = 1 + random.nextInt(12);
      return new SlidingWindow(rate(random), Duration.ofMillis(buckets * (1 + random.nextLong(400))), buckets, null);
    }).map(this::test);
  }

  @TestFactory
  Stream<DynamicTest> slidingLog_luaDecidesAsJava() {
    return timelines("sliding-log", random -> new SlidingLog(rate(random), Duration.ofMillis(period(random)), null))
        .map(this::test);
  }

  @TestFactory
  Stream<DynamicTest> quota_luaDecidesAsJava() {
    return timelines("quota", random -> new Quota(rate(random),
        Quota.Cadence.values()[random.nextInt(3)], ZoneOffset.ofTotalSeconds((random.nextInt(105) - 48) * 900), null))
        .map(this::test);
  }

  private record Timeline(String kind, long seed, Function<Random, Limit> limits) {}

  private static Stream<Timeline> timelines(String kind, Function<Random, Limit> limits) {
    return IntStream.range(0, TIMELINES_PER_KIND).mapToObj(i -> new Timeline(kind, kind.hashCode() * 1000L + i, limits));
  }

  private DynamicTest test(Timeline timeline) {
    return DynamicTest.dynamicTest(timeline.kind() + " seed " + timeline.seed(), () -> replay(timeline));
  }

  private static void replay(Timeline timeline) {
    Random random = new Random(timeline.seed());
    Limit limit = withCapacityAndReserve(timeline.limits().apply(random), random);
    long start = random.nextBoolean() ? random.nextLong(1_000_000) : 1_600_000_000_000L + random.nextLong(300_000_000_000L);
    ManualClock clock = new ManualClock(start);
    long span = limit instanceof Quota ? 3 * DAY : period(limit);
    List<String> keys = List.of("k", "k", "k", "other", "", "\u00e9t\u00e9-\ud83d\ude00");
    try (RateLimiter java = RateLimiter.builder().clock(clock).store(InMemoryStore.keepingEveryKey(clock))
            .limit("l", limit).build();
        // a slow answer must fail the test, never fall back to a local decision
        RateLimiter lua = RateLimiter.builder().clock(clock).storeFailure(FailurePolicy.CLOSED)
            .store(RedisStore.builder().connection(connection).keyPrefix("d" + STORES.incrementAndGet()).clock(clock)
                .commandTimeout(Duration.ofSeconds(10)).build())
            .limit("l", limit).build()) {
      double capacity = limit.capacity();
      double reserveTop = capacity + Math.min(limit.maxReserved(), 2 * capacity);
      for (int step = 0; step < STEPS; step++) {
        long dt = random.nextInt(10) == 0 ? -random.nextLong(span + 1)
            : switch (random.nextInt(3)) {
              case 0 -> 0;
              case 1 -> random.nextLong(span / 4 + 2);
              default -> random.nextLong(2 * span + 1);
            };
        clock.advanceMillis(dt);
        // mostly one request; sometimes a burst at one instant, sent at once, so that Redis
        // decides them in shared script calls while Java takes them one by one, in order
        int burst = random.nextInt(4) == 0 ? 2 + random.nextInt(8) : 1;
        List<String> described = new ArrayList<>();
        List<Decision> expected = new ArrayList<>();
        List<CompletableFuture<Decision>> actual = new ArrayList<>();
        for (int b = 0; b < burst; b++) {
          String key = keys.get(random.nextInt(keys.size()));
          int op = random.nextInt(limit.reservable() ? 14 : 12);
          double top = op >= 12 ? reserveTop : op >= 10 ? 2.5 * capacity : capacity;
          double count = switch (random.nextInt(op == 10 || op == 11 ? 9 : 8)) {
            case 0 -> 0;
            case 1 -> Math.min(1, top);
            case 2 -> top;
            case 8 -> 1e300; // a take far past the debt bound
            default -> random.nextDouble() * top;
          };
          described.add("seed " + timeline.seed() + " step " + step + "." + b + ": " + opName(op) + " " + count
              + " on '" + key + "' at " + clock.millis() + " of " + limit);
          expected.add(apply(java, op, key, count));
          actual.add(applyAsync(lua, op, key, count));
          REQUESTS.incrementAndGet();
        }
        for (int b = 0; b < burst; b++) {
          String at = described.get(b);
          Decision want = expected.get(b);
          Decision got = actual.get(b).join();
          if (Boolean.getBoolean("trace")) {
            System.out.println(at + "\n  java " + want + "\n  lua  " + got);
          }
          if (want == null) {
            continue; // a reset
          }
          assertThat(got.allowed()).as(at + ": allowed; java %s, lua %s", want, got).isEqualTo(want.allowed());
          assertThat(got.remaining()).as(at + ": remaining; java %s, lua %s", want, got)
              .isCloseTo(want.remaining(), within(1e-12 * Math.max(1, capacity + Math.min(limit.maxReserved(), 1e6))));
          assertThat(got.retryAfterMillis()).as(at + ": retryAfter; java %s, lua %s", want, got)
              .isEqualTo(want.retryAfterMillis());
          assertThat(got.resetAfterMillis()).as(at + ": resetAfter; java %s, lua %s", want, got)
              .isEqualTo(want.resetAfterMillis());
          assertThat(got.limit()).isEqualTo(want.limit());
        }
      }
    }
  }

  private static String opName(int op) {
    return op < 5 ? "limit" : op < 8 ? "check" : op == 8 ? "refund" : op == 9 ? "reset" : op < 12 ? "take" : "reserve";
  }

  /** A request as Java decides it; {@code null} for a reset. */
  private static Decision apply(RateLimiter limiter, int op, String key, double count) {
    if (op == 9) {
      limiter.named("l").reset(key);
      return null;
    }
    if (op < 5) {
      return limiter.named("l").limit(key, count);
    }
    if (op < 8) {
      return limiter.named("l").check(key, count);
    }
    if (op == 8) {
      return limiter.named("l").refund(key, count);
    }
    if (op < 12) {
      return limiter.named("l").take(key, count);
    }
    return limiter.named("l").reserve(key, count);
  }

  /** The same request without waiting for its decision; a reset completes with {@code null}. */
  private static CompletableFuture<Decision> applyAsync(RateLimiter limiter, int op, String key, double count) {
    CompletionStage<Decision> decision;
    if (op == 9) {
      decision = limiter.named("l").resetAsync(key).thenApply(done -> null);
    } else if (op < 5) {
      decision = limiter.named("l").limitAsync(key, count);
    } else if (op < 8) {
      decision = limiter.named("l").checkAsync(key, count);
    } else if (op == 8) {
      decision = limiter.named("l").refundAsync(key, count);
    } else if (op < 12) {
      decision = limiter.named("l").takeAsync(key, count);
    } else {
      decision = limiter.named("l").reserveAsync(key, count);
    }
    return decision.toCompletableFuture();
  }

  /** Capacity 1 × rate or a random multiple; maxReserved unbounded, 0 or a random multiple. */
  private static Limit withCapacityAndReserve(Limit limit, Random random) {
    double factor = random.nextBoolean() ? 1 : 0.2 + 2.8 * random.nextDouble();
    double reserve = switch (random.nextInt(3)) {
      case 0 -> Double.POSITIVE_INFINITY;
      case 1 -> 0;
      default -> 2 * random.nextDouble();
    };
    if (limit instanceof TokenBucket l) {
      return new TokenBucket(l.rate(), l.period(), l.rate() * factor, reserve * l.rate() * factor, 1, null);
    }
    if (limit instanceof Gcra l) {
      return new Gcra(l.rate(), l.period(), l.rate() * factor, reserve * l.rate() * factor, 1, null);
    }
    if (limit instanceof FixedWindow l) {
      return new FixedWindow(l.rate(), l.period(), l.rate() * Math.max(1, factor), reserve * l.rate(), 1, l.start(),
          l.randomPhase(), null);
    }
    return limit;
  }

  private static double rate(Random random) {
    return random.nextBoolean() ? 1 + random.nextInt(20) : 0.3 + 39.7 * random.nextDouble();
  }

  private static long period(Random random) {
    return switch (random.nextInt(4)) {
      case 0 -> 1000;
      case 1 -> 60_000;
      case 2 -> 250;
      default -> 5 + random.nextLong(4996);
    };
  }

  private static long period(Limit limit) {
    if (limit instanceof TokenBucket l) {
      return l.period().toMillis();
    }
    if (limit instanceof Gcra l) {
      return l.period().toMillis();
    }
    if (limit instanceof FixedWindow l) {
      return l.period().toMillis();
    }
    if (limit instanceof SlidingWindow l) {
      return l.period().toMillis();
    }
    return ((SlidingLog) limit).period().toMillis();
  }
}

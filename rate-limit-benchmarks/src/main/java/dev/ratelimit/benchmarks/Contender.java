package dev.ratelimit.benchmarks;

import com.google.common.util.concurrent.RateLimiter;
import dev.ratelimit.Decision;
import dev.ratelimit.bucket4j.Bucket4jStore;
import dev.ratelimit.store.InMemoryStore;
import dev.ratelimit.store.RateLimitStore;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One rate limiter under test. Each looks its state up by key on every call, as a web app does:
 * ours in its store, the others in a {@link ConcurrentHashMap} of one limiter per key (a get,
 * and a computeIfAbsent only on a miss).
 */
public interface Contender {

  /** The decision for one unit on {@code key}; returned so that JMH can consume it. */
  Object acquire(String key);

  /** Whether {@link #acquire}'s result admitted the request. */
  boolean admitted(Object result);

  /** The state of every key, to measure its heap. */
  Object state();

  /**
   * The state of one key in a map: a lock-free get, and computeIfAbsent (which locks a bin) only
   * on a miss, as a web app looks its limiter up.
   */
  static <V> V perKey(Map<String, V> map, String key, java.util.function.Function<String, V> create) {
    V value = map.get(key);
    return value != null ? value : map.computeIfAbsent(key, create);
  }

  /** A hot key that admits every request: 10⁹ per second. */
  static final Config ADMITS = new Config(1_000_000_000L, Duration.ofSeconds(1));
  /** A hot key that mostly denies: after the first burst of 10, nearly every call is a denial. */
  static final Config DENIES = new Config(10, Duration.ofSeconds(1));
  /**
   * A hot key that mostly denies, a unit coming back every millisecond: waits fall on millisecond
   * boundaries, and the state changes every millisecond.
   */
  static final Config DENIES_FAST = new Config(1000, Duration.ofSeconds(1));
  /**
   * Many keys holding state: 10⁹ units per 100 years admits every call and never refills to
   * full, so every key keeps its state (none is fresh, in any store).
   */
  static final Config HOLDS = new Config(1_000_000_000L, Duration.ofDays(36_500));

  /** Capacity and rate per period, the same for every contender. */
  record Config(long rate, Duration period) {}

  /** Top keys tracked as Spring Boot's defaults track them: 128 keys per sketch, windows of a minute. */
  static dev.ratelimit.limiter.RateLimiter.Builder trackingTopKeys(dev.ratelimit.limiter.RateLimiter.Builder builder) {
    return builder.trackTopKeys(128, Duration.ofMinutes(1));
  }

  static Contender create(String name, Config config) {
    return switch (name) {
      case "rate-limit" -> new Ours(config, new InMemoryStore());
      case "rate-limit-top" -> new Ours(config, new InMemoryStore(), true);
      case "rate-limit-coarse" -> new Ours(config, new InMemoryStore(dev.ratelimit.Clock.coarse()));
      case "rate-limit-named" -> new Named(config);
      case "rate-limit-admit" -> new Admit(config);
      case "rate-limit-admit-top" -> new Admit(config, true);
      case "rate-limit-bucket4j" -> new Ours(config, Bucket4jStore.local());
      case "bucket4j" -> new Bucket4j(config);
      case "resilience4j" -> new Resilience4j(config);
      case "guava" -> new Guava(config);
      case "map-lookup" -> new MapLookup();
      case "map-clock-cas" -> new MapClockCas();
      default -> throw new IllegalArgumentException("unknown contender " + name);
    };
  }

  /**
   * rate-limit's {@link dev.ratelimit.limiter.RateLimiter} on a store: the in-memory one, or bucket4j's
   * local buckets through the bridge (what letting bucket4j hold the state costs); {@code rate-limit-top}
   * tracks top keys as Spring Boot does by default (what that costs each decision).
   */
  final class Ours implements Contender {
    private final dev.ratelimit.limiter.RateLimiter limiter;

    Ours(Config config, RateLimitStore store) {
      this(config, store, false);
    }

    Ours(Config config, RateLimitStore store, boolean topKeys) {
      dev.ratelimit.limiter.RateLimiter.Builder builder = dev.ratelimit.limiter.RateLimiter.builder().store(store)
          .limit("api", dev.ratelimit.Limit.tokenBucket(config.rate(), config.period()));
      limiter = (topKeys ? trackingTopKeys(builder) : builder).build();
    }

    @Override
    public Object acquire(String key) {
      return limiter.named("api").limit(key, 1);
    }

    @Override
    public boolean admitted(Object result) {
      return ((Decision) result).allowed();
    }

    @Override
    public Object state() {
      return limiter;
    }
  }

  /**
   * rate-limit by a {@link dev.ratelimit.limiter.NamedLimiter}: the limit's name looked up once, as
   * each peer here holds its limiters' map itself; the key still looked up on every call.
   */
  final class Named implements Contender {
    private final dev.ratelimit.limiter.NamedLimiter api;

    Named(Config config) {
      api = api(config);
    }

    /** The limiter both {@code NamedLimiter} contenders decide through. */
    static dev.ratelimit.limiter.NamedLimiter api(Config config) {
      return api(config, false);
    }

    static dev.ratelimit.limiter.NamedLimiter api(Config config, boolean topKeys) {
      dev.ratelimit.limiter.RateLimiter.Builder builder = dev.ratelimit.limiter.RateLimiter.builder()
          .limit("api", dev.ratelimit.Limit.tokenBucket(config.rate(), config.period()));
      return (topKeys ? trackingTopKeys(builder) : builder).build().named("api");
    }

    @Override
    public Object acquire(String key) {
      return api.limit(key, 1);
    }

    @Override
    public boolean admitted(Object result) {
      return ((Decision) result).allowed();
    }

    @Override
    public Object state() {
      return api;
    }
  }

  /**
   * rate-limit by a {@link dev.ratelimit.limiter.NamedLimiter}'s {@code admit}: the answer alone,
   * a boolean, as Resilience4j's {@code acquirePermission} and Guava's {@code tryAcquire} answer.
   */
  final class Admit implements Contender {
    private final dev.ratelimit.limiter.NamedLimiter api;

    Admit(Config config) {
      this(config, false);
    }

    Admit(Config config, boolean topKeys) {
      api = Named.api(config, topKeys);
    }

    @Override
    public Object acquire(String key) {
      return api.admit(key) ? Boolean.TRUE : Boolean.FALSE;
    }

    @Override
    public boolean admitted(Object result) {
      return (Boolean) result;
    }

    @Override
    public Object state() {
      return api;
    }
  }

  /** bucket4j local buckets (lock-free, its default), {@code tryConsumeAndReturnRemaining}. */
  final class Bucket4j implements Contender {
    private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();
    private final Config config;

    Bucket4j(Config config) {
      this.config = config;
    }

    @Override
    public Object acquire(String key) {
      Bucket bucket = perKey(buckets, key, k -> Bucket.builder()
          .addLimit(limit -> limit.capacity(config.rate()).refillGreedy(config.rate(), config.period())).build());
      return bucket.tryConsumeAndReturnRemaining(1);
    }

    @Override
    public boolean admitted(Object result) {
      return ((ConsumptionProbe) result).isConsumed();
    }

    @Override
    public Object state() {
      return buckets;
    }
  }

  /** Resilience4j's {@link AtomicRateLimiter}, {@code acquirePermission} without waiting. */
  final class Resilience4j implements Contender {
    private final Map<String, AtomicRateLimiter> limiters = new ConcurrentHashMap<>();
    private final RateLimiterConfig config;

    Resilience4j(Config limit) {
      config = RateLimiterConfig.custom().limitForPeriod((int) Math.min(Integer.MAX_VALUE, limit.rate()))
          .limitRefreshPeriod(limit.period()).timeoutDuration(Duration.ZERO).build();
    }

    @Override
    public Object acquire(String key) {
      AtomicRateLimiter limiter = perKey(limiters, key, k -> new AtomicRateLimiter(k, config));
      return limiter.acquirePermission() ? Boolean.TRUE : Boolean.FALSE;
    }

    @Override
    public boolean admitted(Object result) {
      return (Boolean) result;
    }

    @Override
    public Object state() {
      return limiters;
    }
  }

  /**
   * Guava's {@link RateLimiter} (smooth bursty), {@code tryAcquire} without waiting. It stores at
   * most one second of permits, so a slow limit with a large capacity is out of its reach: for
   * {@link #HOLDS} it admits at 10⁹ per second, which costs it nothing in speed or memory.
   */
  final class Guava implements Contender {
    private final Map<String, RateLimiter> limiters = new ConcurrentHashMap<>();
    private final double rate;

    Guava(Config config) {
      this.rate = config == HOLDS ? config.rate() : config.rate() / (config.period().toMillis() / 1000.0);
    }

    @Override
    public Object acquire(String key) {
      RateLimiter limiter = perKey(limiters, key, k -> RateLimiter.create(rate));
      return limiter.tryAcquire() ? Boolean.TRUE : Boolean.FALSE;
    }

    @Override
    public boolean admitted(Object result) {
      return (Boolean) result;
    }

    @Override
    public Object state() {
      return limiters;
    }
  }

  /** Not a limiter: the {@link ConcurrentHashMap} lookup alone, the floor under the others. */
  final class MapLookup implements Contender {
    private final Map<String, long[]> entries = new ConcurrentHashMap<>();

    @Override
    public Object acquire(String key) {
      return perKey(entries, key, k -> new long[1]);
    }

    @Override
    public boolean admitted(Object result) {
      return true;
    }

    @Override
    public Object state() {
      return entries;
    }
  }

  /**
   * Not a limiter: the floor under any lock-free limiter that reads a clock, a map lookup, one
   * {@link System#nanoTime()} and one compare-and-set on the value. On virtual machines the clock
   * read is a fenced {@code rdtsc}, which stops the processor from overlapping one call's cache
   * misses with the next call's: with many keys, this floor is far above the lookup alone.
   */
  final class MapClockCas implements Contender {
    private final Map<String, AtomicLong> entries = new ConcurrentHashMap<>();

    @Override
    public Object acquire(String key) {
      long now = System.nanoTime();
      AtomicLong entry = perKey(entries, key, k -> new AtomicLong());
      long seen = entry.get();
      return entry.compareAndSet(seen, now) ? Boolean.TRUE : Boolean.FALSE;
    }

    @Override
    public boolean admitted(Object result) {
      return true;
    }

    @Override
    public Object state() {
      return entries;
    }
  }
}

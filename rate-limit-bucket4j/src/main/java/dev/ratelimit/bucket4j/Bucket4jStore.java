package dev.ratelimit.bucket4j;

import dev.ratelimit.Clock;
import dev.ratelimit.Limit;
import dev.ratelimit.algorithm.LimitKind;
import dev.ratelimit.store.KeySpace;
import dev.ratelimit.store.RateLimitStore;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.distributed.proxy.ClientSideConfig;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import java.util.Objects;
import java.util.function.Function;

/**
 * A store whose state bucket4j holds: local buckets, or any {@link ProxyManager} (JCache on
 * Hazelcast, Infinispan or Ignite; bucket4j's Redis and SQL proxy managers; ...), for teams that
 * already run one. Limits, decisions, headers and annotations stay rate-limit's.
 *
 * <pre>{@code
 * ProxyManager<byte[]> buckets = Bucket4jLettuce.casBasedBuilder(redisClient)
 *     .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofMinutes(1)))
 *     .build();
 * RateLimiter limiter = RateLimiter.builder()
 *     .store(Bucket4jStore.of(buckets, key -> key.getBytes(StandardCharsets.UTF_8)))
 *     .limit("api", "token-bucket rate=100 period=1m")
 *     .build();
 * }</pre>
 *
 * <p>Token-bucket limits become greedily refilled buckets and fixed-window limits intervally
 * aligned ones; other kinds are refused when bound. One unit is a whole number of bucket4j
 * tokens (up to a million), so fractional counts are exact to that step. A key's bucket is
 * stored under {@code name:fingerprint:key}, the fingerprint changing with the limit. Time is the
 * proxy manager's (its client clock, or the backend's); {@link #timeMeter(Clock)} makes a client
 * clock of a rate-limit {@link Clock}. See this module's README for every way the decisions
 * differ from the in-memory store's.
 *
 * @since 1.0
 */
public final class Bucket4jStore implements RateLimitStore {
  private final Buckets buckets;

  private Bucket4jStore(Buckets buckets) {
    this.buckets = buckets;
  }

  /** Local buckets on the system clock: state in this JVM, as bucket4j keeps it. */
  public static Bucket4jStore local() {
    return local(Clock.system());
  }

  /**
   * Local buckets reading {@code clock}. Buckets are kept until their key is reset or the store
   * is closed: for an unbounded set of keys, use a proxy manager that expires them.
   */
  public static Bucket4jStore local(Clock clock) {
    return new Bucket4jStore(new Buckets.Local(timeMeter(clock)));
  }

  /** Buckets on a proxy manager keyed by strings (JCache caches of {@code String} keys, ...). */
  public static Bucket4jStore of(ProxyManager<String> proxyManager) {
    return new Bucket4jStore(new Buckets.Proxied(Objects.requireNonNull(proxyManager, "proxyManager")));
  }

  /**
   * Buckets on a proxy manager with keys of another type, e.g. {@code byte[]} for bucket4j-lettuce:
   * {@code keyMapper} turns each bucket's key ({@code name:fingerprint:key}) into the backend's.
   */
  public static <K> Bucket4jStore of(ProxyManager<K> proxyManager, Function<String, ? extends K> keyMapper) {
    Objects.requireNonNull(proxyManager, "proxyManager");
    Objects.requireNonNull(keyMapper, "keyMapper");
    return of(proxyManager.withMapper(keyMapper));
  }

  /**
   * A bucket4j clock reading a rate-limit {@link Clock} (epoch milliseconds, wall-clock based), for
   * {@link ClientSideConfig#withClientClock} or a proxy manager builder's {@code clientClock}, so
   * that a proxy manager decides on the same time as the rest of the application.
   */
  public static TimeMeter timeMeter(Clock clock) {
    return new ClockTimeMeter(Objects.requireNonNull(clock, "clock"));
  }

  /**
   * @throws IllegalArgumentException for kinds other than token-bucket and fixed-window, naming
   *     the kinds this store runs
   */
  @Override
  public KeySpace bind(String name, Limit limit) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(limit, "limit");
    return new Bucket4jKeySpace(name, BucketMapping.of(limit), buckets);
  }

  /**
   * Keeps every key's state when only {@code mode} or {@code failure} changed (the buckets'
   * keys stay the same); starts fresh for a limit of another kind. A changed limit of the same
   * kind would have to carry each key's used units over (docs/design.md §2.7), which bucket4j's buckets
   * can't be made to do from outside: refused.
   *
   * @throws UnsupportedOperationException for a changed token bucket or fixed window
   */
  @Override
  public KeySpace rebind(KeySpace previous, Limit limit) {
    Objects.requireNonNull(limit, "limit");
    if (!LimitKind.sameState(previous.limit(), limit) && LimitKind.carriesOver(previous.limit(), limit)) {
      throw new UnsupportedOperationException("the bucket4j store can't carry the keys of limit '" + previous.name()
          + "' over to a changed " + limit.kind() + " (docs/design.md §2.7); at runtime only mode and failure can change "
          + "on this store, or the kind (starting fresh)");
    }
    return bind(previous.name(), limit);
  }

  /**
   * Another plan on the same buckets when the keys read the same (only {@code mode} or
   * {@code failure} differ: the same fingerprint, so the same bucket). Any other plan of the kind
   * would need the used units carried from one bucket to another, which a bucket4j bucket can't
   * be made to do from outside: refused, and the limiter stops at {@code build()} naming the limit
   * and the plan.
   *
   * @throws UnsupportedOperationException for a plan with other numbers
   */
  @Override
  public KeySpace share(KeySpace sibling, Limit limit) {
    Objects.requireNonNull(limit, "limit");
    if (!LimitKind.sameState(sibling.limit(), limit)) {
      throw new UnsupportedOperationException("the bucket4j store can't carry a key's used units from one "
          + limit.kind() + " bucket to another (docs/design.md §2.7); on this store a plan's limit is either of another "
          + "kind (a state of its own) or differs only in mode and failure");
    }
    return bind(sibling.name(), limit);
  }

  Buckets buckets() {
    return buckets;
  }

  /** Drops local buckets; a proxy manager and its connections stay the caller's to close. */
  @Override
  public void close() {
    buckets.close();
  }

  @Override
  public String toString() {
    return "Bucket4jStore[" + (buckets.remote() ? "proxy manager" : "local buckets") + "]";
  }

  /** Epoch milliseconds as bucket4j's nanoseconds. */
  private record ClockTimeMeter(Clock clock) implements TimeMeter {
    @Override
    public long currentTimeNanos() {
      return Math.multiplyExact(clock.millis(), 1_000_000L);
    }

    @Override
    public boolean isWallClockBased() {
      return true;
    }
  }
}

package dev.ratelimit.redis;

import dev.ratelimit.Clock;
import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.algorithm.LimitKind;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.KeySpace;
import dev.ratelimit.store.RateLimitStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Keeps limits' state in Redis, so that every application node makes the same decisions
 * (docs/design.md §4). Each decision is one Lua script per algorithm, run with {@code FCALL} on Redis 7
 * (a function library) or {@code EVALSHA}: at most
 * one Redis command per decision, atomic, no compare-and-swap retries; concurrent decisions on one
 * hot key share one script call that decides each in order. Time is Redis {@code TIME}, so nodes
 * with skewed clocks agree. Keys are {@code prefix:{name:key}}; each expires when its state is
 * fresh again. Standalone, Sentinel and Cluster, through Lettuce (one multiplexed connection).
 *
 * <pre>{@code
 * RateLimiter limiter = RateLimiter.builder()
 *     .store(RedisStore.builder().uri("redis://redis.internal:6379").build())
 *     .limit("api", "token-bucket rate=100 period=1m")
 *     .build();
 * }</pre>
 *
 * <p>When Redis does not answer within the command timeout (default 250 ms), or the connection is
 * down, calls fail with {@link StoreUnavailableException}; the {@link dev.ratelimit.limiter.RateLimiter}
 * then applies each limit's failure policy ({@code open}, {@code closed} or {@code local}) until
 * Redis answers again. Lettuce reconnects by itself.
 *
 * <p>Load is not a failure: many callers at once wait for their turn, coalesced, and Redis decides
 * them all (a synchronous caller's thread blocks; at most {@link Builder#maxPending} asynchronous
 * requests are pending at once, one past that is refused with a
 * {@link java.util.concurrent.RejectedExecutionException}). Only Redis down, or a script call
 * unanswered past the command timeout, hands decisions to the failure policy: the call's
 * requests and those waiting behind it, at once.
 *
 * @since 1.0
 */
public final class RedisStore implements RateLimitStore {
  /** The default key prefix. */
  public static final String DEFAULT_PREFIX = "ratelimit";
  /** The default command timeout. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(250);
  /** The default bound on asynchronous decisions pending at once, queued or in flight. */
  public static final int DEFAULT_MAX_PENDING = 10_000;
  /** How often, by default, a node reads the limits changed at runtime on other nodes. */
  public static final Duration DEFAULT_SYNC_INTERVAL = Duration.ofSeconds(1);

  private final ScriptRunner runner;
  private final Backlog backlog;
  private final AllOrNothingCalls allCalls;
  private final KeyNames keyNames;
  private final Clock clock;
  private final boolean coalescing;
  private final boolean cluster;
  private final Runnable closer;
  private final RedisClusterAsyncCommands<String, String> commands;
  private final long syncIntervalMillis;
  /** The limiter whose runtime changes this store shares with other nodes, or {@code null}. */
  private volatile LimitSync sync;
  /** For leases' lifetimes. */
  private final io.netty.util.Timer timer;
  /** The key spaces of limits with leases, whose leases go back to Redis on close. */
  private final java.util.Set<LeasedKeySpace> leased = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private RedisStore(RedisConnector.Connected connected, Builder options) {
    this.runner = new ScriptRunner(connected.commands(), connected.cluster(), connected.timer(),
        options.timeout.toMillis(), connected.where());
    this.backlog = new Backlog(options.maxPending, connected.where());
    this.allCalls = new AllOrNothingCalls(runner, backlog);
    this.keyNames = new KeyNames(options.prefix);
    this.clock = options.clock;
    this.coalescing = options.coalescing;
    this.cluster = connected.cluster();
    this.closer = connected.closer();
    this.commands = connected.commands();
    this.syncIntervalMillis = options.syncInterval.toMillis();
    this.timer = connected.timer();
  }

  /**
   * A builder. Checks the Lettuce on the class path first: the store needs 6.3.0 or later, and
   * an older one is an {@link IllegalStateException} naming the version found and that minimum.
   */
  public static Builder builder() {
    LettuceRequirement.check();
    return new Builder();
  }

  /** A store on one Redis server or a Sentinel-managed one ({@code redis-sentinel://...#master}), with defaults. */
  public static RedisStore create(String uri) {
    return builder().uri(uri).build();
  }

  @Override
  public KeySpace bind(String name, Limit limit) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(limit, "limit");
    return leasedIfAsked(new RedisKeySpace(this, name, limit));
  }

  /** A limit with {@code lease=N} takes leases (docs/design.md §4.3.3); others decide each request in Redis. */
  private KeySpace leasedIfAsked(RedisKeySpace keys) {
    if (keys.limit().lease() == 0) {
      return keys;
    }
    LeasedKeySpace space = new LeasedKeySpace(this, keys, timer);
    leased.add(space);
    return space;
  }

  /**
   * The same Redis keys under the new limit (state is keyed by name): kept as they are when only
   * {@code mode} or {@code failure} changed (the fingerprint is the same); carried over on first
   * touch from any other limit of a token bucket, GCRA or fixed window of the name, since their
   * values name their writer's parameters (docs/design.md §2.7); fresh otherwise.
   */
  @Override
  public KeySpace rebind(KeySpace previous, Limit limit) {
    Objects.requireNonNull(limit, "limit");
    if (previous instanceof LeasedKeySpace old && leased.remove(old)) {
      old.giveAllBack(); // the new limit decides from Redis's state, leases given back included
    }
    return leasedIfAsked(new RedisKeySpace(this, previous.name(), limit));
  }

  /**
   * Another plan on the same Redis keys: one value per key, whichever plan wrote it, converted by
   * the script of the plan deciding (its writer's parameters are in the value), so one round
   * trip as ever (docs/design.md §2.7).
   */
  @Override
  public KeySpace share(KeySpace sibling, Limit limit) {
    Objects.requireNonNull(limit, "limit");
    if (!LimitKind.sameState(sibling.limit(), limit) && !LimitKind.carriesOver(sibling.limit(), limit)) {
      throw new UnsupportedOperationException("the Redis store converts a key's state only between token buckets, "
          + "GCRAs or fixed windows (no random phase) of one kind, not " + sibling.limit() + " and " + limit);
    }
    return rebind(sibling, limit);
  }

  /**
   * All or nothing in one script call when every key is in one slot (always, on a standalone
   * server or Sentinel): each charge is decided in order at one instant, and a denial writes
   * nothing. In a Cluster, keys of different {@code {name:key}} tags usually live in different
   * slots, where no script can reach them all; such calls take the charges one by one and give
   * back what was taken at the first denial ({@link RateLimitStore#limitInOrder}), which is still
   * all or nothing, though not at one instant.
   */
  @Override
  public List<Decision> limitAll(List<Charge> charges) {
    if (charges.isEmpty()) {
      return List.of();
    }
    Charged charged = charged(charges);
    if (charges.size() == 1) {
      // one key: its lane decides it, in order with the key's other requests
      Charge charge = charges.get(0);
      return List.of(charged.spaces.get(0).apply(charge.key(), Operation.LIMIT, charge.count(), 0));
    }
    if (cluster && !oneSlot(charged.keys)) {
      return RateLimitStore.limitInOrder(charges);
    }
    return charged.decisions(backlog.await(allCalls.run(charged.keys, charged.args(charges), true)));
  }

  @Override
  public CompletableFuture<List<Decision>> limitAllAsync(List<Charge> charges) {
    if (charges.isEmpty()) {
      return CompletableFuture.completedFuture(List.of());
    }
    Charged charged = charged(charges);
    if (charges.size() == 1) {
      Charge charge = charges.get(0);
      return charged.spaces.get(0).applyAsync(charge.key(), Operation.LIMIT, charge.count(), 0).thenApply(List::of);
    }
    if (cluster && !oneSlot(charged.keys)) {
      return RateLimitStore.limitInOrderAsync(charges).toCompletableFuture();
    }
    return allCalls.run(charged.keys, charged.args(charges), false).thenApply(charged::decisions);
  }

  /** The charges' key spaces on this store and their Redis keys. */
  private Charged charged(List<Charge> charges) {
    List<RedisKeySpace> spaces = new ArrayList<>(charges.size());
    String[] keys = new String[charges.size()];
    for (int i = 0; i < keys.length; i++) {
      Charge charge = charges.get(i);
      RedisKeySpace space = own(charge.space());
      spaces.add(space);
      keys[i] = space.redisKey(charge.key());
    }
    return new Charged(spaces, keys);
  }

  /** An all-or-nothing call's key spaces and Redis keys, as the script takes them. */
  private final class Charged {
    final List<RedisKeySpace> spaces;
    final String[] keys;

    Charged(List<RedisKeySpace> spaces, String[] keys) {
      this.spaces = spaces;
      this.keys = keys;
    }

    String[] args(List<Charge> charges) {
      String[] args = ScriptArguments.all(now(), keepsEveryKey(), keys.length);
      for (int i = 0; i < keys.length; i++) {
        spaces.get(i).chargeArgs(charges.get(i).key(), charges.get(i).count(), args, i);
      }
      return args;
    }

    List<Decision> decisions(byte[] reply) {
      List<Decision> decisions = new ArrayList<>(keys.length);
      for (int i = 0; i < keys.length; i++) {
        decisions.add(Args.reply(reply, i).decision(spaces.get(i).name(), spaces.get(i).limit().capacity()));
      }
      return decisions;
    }
  }

  private static boolean oneSlot(String[] keys) {
    int slot = SlotHash.getSlot(keys[0]);
    for (int i = 1; i < keys.length; i++) {
      if (SlotHash.getSlot(keys[i]) != slot) {
        return false;
      }
    }
    return true;
  }

  private RedisKeySpace own(KeySpace space) {
    if (space instanceof RedisKeySpace mine && mine.store() == this) {
      return mine;
    }
    if (space instanceof LeasedKeySpace leasing && leasing.keys().store() == this) {
      return leasing.keys(); // all or nothing is decided in Redis, leases aside
    }
    throw new IllegalArgumentException("limit '" + space.name() + "' is bound to another store");
  }

  /**
   * Shares {@code limiter}'s runtime changes with every node whose limiter syncs on the same
   * Redis and key prefix (docs/design.md §4.3.2): a {@link dev.ratelimit.limiter.NamedLimiter#replace} on any of them is in
   * force on all within {@link Builder#syncInterval} plus twice the command timeout, while Redis
   * answers. First puts in force the changes Redis holds (made before this node started; they
   * override the limiter's configured specs until removed from Redis), then reads them every
   * interval on one daemon thread, which {@link #close} ends. A replace on this node then fails
   * with {@link StoreUnavailableException}, changing nothing, when Redis does not take it.
   *
   * @param limiter the limiter built on this store
   * @throws IllegalStateException if this store already syncs a limiter
   */
  public synchronized void syncLimits(RateLimiter limiter) {
    Objects.requireNonNull(limiter, "limiter");
    if (sync != null) {
      throw new IllegalStateException("this store already syncs the limits of a limiter");
    }
    sync = LimitSync.start(commands, keyNames.limits(), runner.timeoutMillis(), runner.where(), limiter,
        syncIntervalMillis);
  }

  /** A replace on this node: written to Redis for the other nodes when limits are synced. */
  @Override
  public void replacing(String name, String plan, Limit limit) {
    LimitSync own = sync;
    if (own != null) {
      own.publish(name, plan, limit);
    }
  }

  /**
   * Ends the limit sync, gives back the leases held here, and closes the connection (and the
   * client and its threads when this store made them).
   */
  @Override
  public void close() {
    LimitSync own = sync;
    if (own != null) {
      own.close();
    }
    // leases held here go back first (waiting at most a command timeout), or they are lost until the keys refill
    CompletableFuture<?>[] returns = leased.stream().map(LeasedKeySpace::giveAllBack).toArray(CompletableFuture[]::new);
    try {
      CompletableFuture.allOf(returns).get(runner.timeoutMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      // Redis down or slow: the units are lost, fewer admissions rather than more
    }
    closer.run();
  }

  @Override
  public String toString() {
    return "RedisStore[" + runner.where() + "]";
  }

  // ---- for the key spaces ----

  ScriptRunner runner() {
    return runner;
  }

  /** The limit sync, or {@code null} (for tests, which poll instead of waiting). */
  LimitSync limitSync() {
    return sync;
  }

  /** The decisions pending on this store's connection. */
  Backlog backlog() {
    return backlog;
  }

  KeyNames keyNames() {
    return keyNames;
  }

  boolean coalescing() {
    return coalescing;
  }

  /** Whether keys live in several slots, which one script call can't span. */
  boolean cluster() {
    return cluster;
  }

  /** With a clock of the caller's (tests), keys never expire: that clock may go back. */
  boolean keepsEveryKey() {
    return clock != null;
  }

  /** The time argument of a script call: the caller's clock, or empty for Redis TIME. */
  String now() {
    return clock == null ? "" : Long.toString(clock.millis());
  }

  /** Configures a {@link RedisStore}: where Redis is (one of four ways), and how to talk to it. */
  public static final class Builder {
    private final RedisConnector connector = new RedisConnector();
    private String prefix = DEFAULT_PREFIX;
    private Duration timeout = DEFAULT_TIMEOUT;
    private Clock clock;
    private boolean coalescing = true;
    private int maxPending = DEFAULT_MAX_PENDING;
    private Duration syncInterval = DEFAULT_SYNC_INTERVAL;

    private Builder() {}

    /**
     * One Redis server ({@code redis://host:6379}, {@code rediss://...} for TLS) or the master of
     * a Sentinel group ({@code redis-sentinel://sentinel1:26379,sentinel2:26379/0#mymaster}). The
     * store makes its own client and closes it with the store. With {@link #client(RedisClient)}:
     * the URI to connect that client to.
     */
    public Builder uri(String uri) {
      connector.uri(uri);
      return this;
    }

    /** As {@link #uri(String)}, from Lettuce's own form (credentials need no escaping). */
    public Builder uri(RedisURI uri) {
      connector.uri(uri);
      return this;
    }

    /** A Redis Cluster, from one or more of its nodes' URIs. */
    public Builder cluster(String... uris) {
      connector.cluster(uris);
      return this;
    }

    /** A client of the application's; the store opens its own connection and leaves the client open. */
    public Builder client(RedisClient client) {
      connector.client(client);
      return this;
    }

    /** A Cluster client of the application's; the store opens its own connection and leaves the client open. */
    public Builder client(RedisClusterClient client) {
      connector.client(client);
      return this;
    }

    /** A connection of the application's, shared (Lettuce connections are thread-safe); left open on close. */
    public Builder connection(StatefulRedisConnection<String, String> connection) {
      connector.connection(connection);
      return this;
    }

    /** A Cluster connection of the application's, shared; left open on close. */
    public Builder connection(StatefulRedisClusterConnection<String, String> connection) {
      connector.connection(connection);
      return this;
    }

    /** The first part of every key, {@code prefix:{name:key}}. Default {@value #DEFAULT_PREFIX}. */
    public Builder keyPrefix(String prefix) {
      Objects.requireNonNull(prefix, "prefix");
      if (prefix.isEmpty() || prefix.contains("{") || prefix.contains("}")) {
        throw new IllegalArgumentException("keyPrefix must be non-empty and free of '{' and '}' (they delimit "
            + "the Cluster hash tag) but was '" + prefix + "'");
      }
      this.prefix = prefix;
      return this;
    }

    /**
     * How long a script call may wait for Redis's answer, from when it is sent, before it fails
     * with {@link StoreUnavailableException} and the limit's failure policy decides its requests
     * and those waiting behind it. Default 250 ms. Time a request waits for its turn in the
     * client (many callers at once) does not count: load is not a failure.
     */
    public Builder commandTimeout(Duration timeout) {
      if (timeout == null || timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("commandTimeout must be positive but was " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /**
     * The most asynchronous decisions that may be pending at once, queued behind a script call or
     * in one (default {@value #DEFAULT_MAX_PENDING}). One past it is not queued: it fails at once
     * with a {@link java.util.concurrent.RejectedExecutionException}, which is not a store
     * failure (the store stays available, no failure policy decides): the callers ask faster than
     * Redis answers, and the queue would otherwise grow without bound. A decision keeps its place
     * until its script call returns. Synchronous decisions are not counted: each waits for its
     * turn on its caller's thread, however many there are.
     */
    public Builder maxPending(int maxPending) {
      if (maxPending < 1) {
        throw new IllegalArgumentException("maxPending must be at least 1 but was " + maxPending);
      }
      this.maxPending = maxPending;
      return this;
    }

    /**
     * Reads time from this clock instead of Redis {@code TIME}, for tests that replay traces on a
     * {@link dev.ratelimit.ManualClock}. Keys then never expire (such a clock may go back, and a
     * state that is fresh now may matter at an earlier time): not for production.
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Whether concurrent requests on one key share one script call (default: yes). Each is still
     * decided exactly and in order; turning it off sends one call per request, for comparisons.
     */
    public Builder coalescing(boolean coalescing) {
      this.coalescing = coalescing;
      return this;
    }

    /**
     * How often {@link RedisStore#syncLimits synced} limits read the changes other nodes made
     * (one {@code HGET}; the hash of changes only when it changed). Default 1 s. A change is in
     * force on every node within this interval plus twice the command timeout.
     */
    public Builder syncInterval(Duration interval) {
      if (interval == null || interval.toMillis() < 1) {
        throw new IllegalArgumentException("syncInterval must be at least 1 ms but was " + interval);
      }
      this.syncInterval = interval;
      return this;
    }

    /**
     * Connects (the store's own client, if it makes one) and checks that Redis answers.
     *
     * @throws IllegalArgumentException if a URI is malformed
     * @throws IllegalStateException if not exactly one of uri, cluster, client and connection is set
     * @throws StoreUnavailableException naming the URI, if Redis can't be reached
     */
    public RedisStore build() {
      return new RedisStore(connector.connect(timeout), this);
    }
  }
}

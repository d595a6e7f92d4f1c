package dev.ratelimit.redis;

import dev.ratelimit.Clock;
import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.store.KeySpace;
import dev.ratelimit.store.Operation;
import dev.ratelimit.store.RateLimitStore;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Keeps limits' state in Redis, so that every application node makes the same decisions
 * (DESIGN.md §4). Each decision is one Lua script per algorithm, run with {@code EVALSHA}: at most
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
 * down, calls fail with {@link StoreUnavailableException}; the {@link dev.ratelimit.RateLimiter}
 * then applies each limit's failure policy ({@code open}, {@code closed} or {@code local}) until
 * Redis answers again. Lettuce reconnects by itself.
 */
public final class RedisStore implements RateLimitStore {
  /** The default key prefix. */
  public static final String DEFAULT_PREFIX = "ratelimit";
  /** The default command timeout. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(250);

  private static final Pattern CREDENTIALS = Pattern.compile("(?<=://)[^@/]*@");

  private final ScriptRunner runner;
  private final KeyNames keyNames;
  private final Clock clock;
  private final boolean coalescing;
  private final boolean cluster;
  private final Runnable closer;

  private RedisStore(ScriptRunner runner, String prefix, Clock clock, boolean coalescing, boolean cluster,
      Runnable closer) {
    this.runner = runner;
    this.keyNames = new KeyNames(prefix);
    this.clock = clock;
    this.coalescing = coalescing;
    this.cluster = cluster;
    this.closer = closer;
  }

  public static Builder builder() {
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
    return new RedisKeySpace(this, name, limit);
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
    return await(limitAllAsync(charges));
  }

  @Override
  public CompletableFuture<List<Decision>> limitAllAsync(List<Charge> charges) {
    if (charges.isEmpty()) {
      return CompletableFuture.completedFuture(List.of());
    }
    List<RedisKeySpace> spaces = new ArrayList<>(charges.size());
    String[] keys = new String[charges.size()];
    for (int i = 0; i < keys.length; i++) {
      Charge charge = charges.get(i);
      RedisKeySpace space = own(charge.space());
      spaces.add(space);
      keys[i] = space.redisKey(charge.key());
    }
    if (charges.size() == 1) {
      // one key: its lane decides it, in order with the key's other requests
      Charge charge = charges.get(0);
      return spaces.get(0).applyAsync(charge.key(), Operation.LIMIT, charge.count(), 0).thenApply(List::of);
    }
    if (cluster && !oneSlot(keys)) {
      return limitInOrderAsync(charges, 0, new ArrayList<>());
    }
    String[] args = new String[2 + 8 * keys.length];
    args[0] = now();
    args[1] = keepsEveryKey() ? "1" : "0";
    for (int i = 0; i < keys.length; i++) {
      spaces.get(i).chargeArgs(charges.get(i).key(), charges.get(i).count(), args, 2 + 8 * i);
    }
    return runner.run(Script.LIMIT_ALL, keys, args).thenApply(reply -> {
      List<Decision> decisions = new ArrayList<>(keys.length);
      for (int i = 0; i < keys.length; i++) {
        decisions.add(Args.decision(Args.reply(reply, i), spaces.get(i).limit().capacity()));
      }
      return decisions;
    });
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

  /** {@link RateLimitStore#limitInOrder} without blocking: charge by charge, giving back on a denial. */
  private CompletableFuture<List<Decision>> limitInOrderAsync(List<Charge> charges, int at, List<Decision> taken) {
    if (at == charges.size()) {
      return CompletableFuture.completedFuture(taken);
    }
    Charge charge = charges.get(at);
    return charge.space().applyAsync(charge.key(), Operation.LIMIT, charge.count(), 0).toCompletableFuture()
        .thenCompose(decision -> {
          if (decision.allowed()) {
            taken.add(decision);
            return limitInOrderAsync(charges, at + 1, taken);
          }
          CompletableFuture<?>[] refunds = new CompletableFuture<?>[at];
          for (int j = 0; j < at; j++) {
            Charge back = charges.get(j);
            refunds[j] = back.space().refundAsync(back.key(), back.count()).toCompletableFuture();
          }
          return CompletableFuture.allOf(refunds).thenCompose(givenBack -> {
            List<CompletableFuture<Decision>> all = new ArrayList<>(charges.size());
            for (int j = 0; j < charges.size(); j++) {
              Charge other = charges.get(j);
              all.add(j == at ? CompletableFuture.completedFuture(decision)
                  : other.space().applyAsync(other.key(), Operation.CHECK, other.count(), 0).toCompletableFuture());
            }
            return CompletableFuture.allOf(all.toArray(CompletableFuture<?>[]::new))
                .thenApply(checked -> all.stream().map(CompletableFuture::join).collect(Collectors.toList()));
          });
        });
  }

  private RedisKeySpace own(KeySpace space) {
    if (space instanceof RedisKeySpace mine && mine.store() == this) {
      return mine;
    }
    throw new IllegalArgumentException("limit '" + space.name() + "' is bound to another store");
  }

  /** Closes the connection, and the client and its threads when this store made them. */
  @Override
  public void close() {
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

  /** Waits for a call; its failure as thrown by the synchronous API. */
  <T> T await(CompletableFuture<T> call) {
    try {
      // every script call fails by itself within the timeout; a request may wait for the call
      // before it, so this bound is only a backstop
      return call.get(3 * runner.timeoutMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = ScriptRunner.unwrap(e);
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw runner.translate(cause, null);
    } catch (TimeoutException e) {
      throw runner.unavailable(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("interrupted while waiting for Redis at " + runner.where(), e);
    }
  }

  static String withoutCredentials(String uri) {
    return CREDENTIALS.matcher(uri).replaceAll("");
  }

  /** Configures a {@link RedisStore}: where Redis is (one of four ways), and how to talk to it. */
  public static final class Builder {
    private String uri;
    private RedisURI redisUri;
    private List<String> clusterUris;
    private RedisClient client;
    private RedisClusterClient clusterClient;
    private StatefulRedisConnection<String, String> connection;
    private StatefulRedisClusterConnection<String, String> clusterConnection;
    private String prefix = DEFAULT_PREFIX;
    private Duration timeout = DEFAULT_TIMEOUT;
    private Clock clock;
    private boolean coalescing = true;

    private Builder() {}

    /**
     * One Redis server ({@code redis://host:6379}, {@code rediss://...} for TLS) or the master of
     * a Sentinel group ({@code redis-sentinel://sentinel1:26379,sentinel2:26379/0#mymaster}). The
     * store makes its own client and closes it with the store. With {@link #client(RedisClient)}:
     * the URI to connect that client to.
     */
    public Builder uri(String uri) {
      this.uri = Objects.requireNonNull(uri, "uri");
      this.redisUri = null;
      return this;
    }

    /** As {@link #uri(String)}, from Lettuce's own form (credentials need no escaping). */
    public Builder uri(RedisURI uri) {
      Objects.requireNonNull(uri, "uri");
      this.uri = (uri.isSsl() ? "rediss://" : "redis://") + uri.getHost() + ":" + uri.getPort() + "/" + uri.getDatabase();
      this.redisUri = uri;
      return this;
    }

    /** A Redis Cluster, from one or more of its nodes' URIs. */
    public Builder cluster(String... uris) {
      if (uris.length == 0) {
        throw new IllegalArgumentException("cluster needs at least one node URI");
      }
      this.clusterUris = List.of(uris);
      return this;
    }

    /** A client of the application's; the store opens its own connection and leaves the client open. */
    public Builder client(RedisClient client) {
      this.client = Objects.requireNonNull(client, "client");
      return this;
    }

    /** A Cluster client of the application's; the store opens its own connection and leaves the client open. */
    public Builder client(RedisClusterClient client) {
      this.clusterClient = Objects.requireNonNull(client, "client");
      return this;
    }

    /** A connection of the application's, shared (Lettuce connections are thread-safe); left open on close. */
    public Builder connection(StatefulRedisConnection<String, String> connection) {
      this.connection = Objects.requireNonNull(connection, "connection");
      return this;
    }

    /** A Cluster connection of the application's, shared; left open on close. */
    public Builder connection(StatefulRedisClusterConnection<String, String> connection) {
      this.clusterConnection = Objects.requireNonNull(connection, "connection");
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
     * How long a decision may wait for Redis before it fails with
     * {@link StoreUnavailableException} and the limit's failure policy decides. Default 250 ms.
     */
    public Builder commandTimeout(Duration timeout) {
      if (timeout == null || timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("commandTimeout must be positive but was " + timeout);
      }
      this.timeout = timeout;
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
     * Connects (the store's own client, if it makes one) and checks that Redis answers.
     *
     * @throws IllegalArgumentException if a URI is malformed
     * @throws IllegalStateException if not exactly one of uri, cluster, client and connection is set
     * @throws StoreUnavailableException naming the URI, if Redis can't be reached
     */
    public RedisStore build() {
      int sources = (clusterUris != null ? 1 : 0) + (client != null ? 1 : 0) + (clusterClient != null ? 1 : 0)
          + (connection != null ? 1 : 0) + (clusterConnection != null ? 1 : 0);
      if (sources == 0 && uri != null) {
        return standalone(redisUri != null ? redisUri : parse(uri));
      }
      if (sources != 1 || (uri != null && client == null)) {
        throw new IllegalStateException("configure exactly one of uri, cluster, client (with an optional uri) "
            + "and connection");
      }
      if (connection != null) {
        return new RedisStore(runner(connection.async(), connection, "a Lettuce connection"), prefix, clock,
            coalescing, false, () -> {});
      }
      if (clusterConnection != null) {
        return new RedisStore(runner(clusterConnection.async(), clusterConnection, "a Lettuce Cluster connection"),
            prefix, clock, coalescing, true, () -> {});
      }
      if (client != null) {
        String where = uri != null ? withoutCredentials(uri) : "a Lettuce client";
        StatefulRedisConnection<String, String> own = connect(where, () -> uri != null
            ? client.connect(StringCodec.UTF8, redisUri != null ? redisUri : parse(uri)) : client.connect(StringCodec.UTF8));
        return new RedisStore(runner(own.async(), own, where), prefix, clock, coalescing, false, own::close);
      }
      if (clusterClient != null) {
        StatefulRedisClusterConnection<String, String> own = connect("a Lettuce Cluster client",
            () -> clusterClient.connect(StringCodec.UTF8));
        return new RedisStore(runner(own.async(), own, "a Lettuce Cluster client"), prefix, clock, coalescing, true,
            own::close);
      }
      return cluster(clusterUris.stream().map(Builder::parse).toList());
    }

    private RedisStore standalone(RedisURI redisUri) {
      String where = withoutCredentials(uri);
      Owned owned = new Owned();
      try {
        RedisClient own = RedisClient.create(owned.resources, redisUri);
        owned.client = own;
        own.setOptions(ClientOptions.builder().autoReconnect(true)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .socketOptions(socketOptions()).timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build())
            .build());
        StatefulRedisConnection<String, String> connection = connect(where, () -> own.connect(StringCodec.UTF8));
        owned.connection = connection;
        return new RedisStore(runner(connection.async(), connection, where), prefix, clock, coalescing, false,
            owned::close);
      } catch (RuntimeException e) {
        owned.close();
        throw e;
      }
    }

    private RedisStore cluster(List<RedisURI> uris) {
      String where = "Redis Cluster " + clusterUris.stream().map(RedisStore::withoutCredentials).toList();
      Owned owned = new Owned();
      try {
        RedisClusterClient own = RedisClusterClient.create(owned.resources, uris);
        owned.client = own;
        own.setOptions(ClusterClientOptions.builder().autoReconnect(true)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .socketOptions(socketOptions()).timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build())
            .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder().enableAllAdaptiveRefreshTriggers().build())
            .build());
        StatefulRedisClusterConnection<String, String> connection = connect(where, () -> own.connect(StringCodec.UTF8));
        owned.connection = connection;
        return new RedisStore(runner(connection.async(), connection, where), prefix, clock, coalescing, true,
            owned::close);
      } catch (RuntimeException e) {
        owned.close();
        throw e;
      }
    }

    private SocketOptions socketOptions() {
      // connecting may take longer than a command, but not much: reconnects should notice soon
      return SocketOptions.builder().connectTimeout(timeout.compareTo(Duration.ofSeconds(1)) > 0 ? timeout
          : Duration.ofSeconds(1)).build();
    }

    private ScriptRunner runner(RedisScriptingAsyncCommands<String, String> commands, StatefulConnection<?, ?> on,
        String where) {
      return new ScriptRunner(commands, on.getResources().timer(), timeout.toMillis(), where);
    }

    private static <C> C connect(String where, java.util.function.Supplier<C> connect) {
      try {
        return connect.get();
      } catch (RuntimeException e) {
        throw new StoreUnavailableException("Redis at " + where + " unavailable: " + e.getMessage(), e);
      }
    }

    private static RedisURI parse(String uri) {
      try {
        return RedisURI.create(uri);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("invalid Redis URI '" + withoutCredentials(uri) + "': " + e.getMessage(), e);
      }
    }
  }

  /**
   * What a store made for itself and closes with itself: client resources whose reconnects back
   * off to at most a second (so decisions come back to Redis soon after it does), and a timer
   * fine enough for command timeouts of a few hundred milliseconds.
   */
  private static final class Owned {
    final Timer timer = new HashedWheelTimer(new DefaultThreadFactory("ratelimit-redis-timer", true), 10,
        TimeUnit.MILLISECONDS);
    final ClientResources resources = DefaultClientResources.builder().timer(timer)
        .reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
        .build();
    io.lettuce.core.AbstractRedisClient client;
    StatefulConnection<?, ?> connection;

    void close() {
      try {
        if (connection != null) {
          connection.close();
        }
      } finally {
        try {
          if (client != null) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
          }
        } finally {
          resources.shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
          timer.stop();
        }
      }
    }
  }
}

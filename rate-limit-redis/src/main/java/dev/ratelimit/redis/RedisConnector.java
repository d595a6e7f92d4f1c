package dev.ratelimit.redis;

import dev.ratelimit.StoreUnavailableException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Where a {@link RedisStore}'s connection comes from, one of four ways: a URI (one server, or a
 * Sentinel group), a Cluster's node URIs, a client of the application's, or a connection of the
 * application's. {@link #connect} opens it (with the store's own client and client resources
 * when it makes them) and says how closing the store closes it.
 */
final class RedisConnector {
  private static final Pattern CREDENTIALS = Pattern.compile("(?<=://)[^@/]*@");

  private String uri;
  private RedisURI redisUri;
  private List<String> clusterUris;
  private RedisClient client;
  private RedisClusterClient clusterClient;
  private StatefulRedisConnection<String, String> connection;
  private StatefulRedisClusterConnection<String, String> clusterConnection;

  /**
   * An open connection as the store uses it.
   *
   * @param where the store as users know it, for messages: its URI (without credentials)
   * @param cluster whether keys live in several slots, which one script call can't span
   * @param closer closes what the store made for itself, and nothing of the application's
   */
  record Connected(RedisClusterAsyncCommands<String, String> commands, Timer timer, String where, boolean cluster,
      Runnable closer) {}

  void uri(String uri) {
    this.uri = Objects.requireNonNull(uri, "uri");
    this.redisUri = null;
  }

  void uri(RedisURI uri) {
    Objects.requireNonNull(uri, "uri");
    this.uri = (uri.isSsl() ? "rediss://" : "redis://") + uri.getHost() + ":" + uri.getPort() + "/" + uri.getDatabase();
    this.redisUri = uri;
  }

  void cluster(String... uris) {
    if (uris.length == 0) {
      throw new IllegalArgumentException("cluster needs at least one node URI");
    }
    this.clusterUris = List.of(uris);
  }

  void client(RedisClient client) {
    this.client = Objects.requireNonNull(client, "client");
  }

  void client(RedisClusterClient client) {
    this.clusterClient = Objects.requireNonNull(client, "client");
  }

  void connection(StatefulRedisConnection<String, String> connection) {
    this.connection = Objects.requireNonNull(connection, "connection");
  }

  void connection(StatefulRedisClusterConnection<String, String> connection) {
    this.clusterConnection = Objects.requireNonNull(connection, "connection");
  }

  /**
   * Connects (the store's own client, if it makes one).
   *
   * @param timeout the store's command timeout, which bounds how long a reconnect may take
   * @throws IllegalArgumentException if a URI is malformed
   * @throws IllegalStateException if not exactly one of uri, cluster, client and connection is set
   * @throws StoreUnavailableException naming the URI, if Redis can't be reached
   */
  Connected connect(Duration timeout) {
    int sources = (clusterUris != null ? 1 : 0) + (client != null ? 1 : 0) + (clusterClient != null ? 1 : 0)
        + (connection != null ? 1 : 0) + (clusterConnection != null ? 1 : 0);
    if (sources == 0 && uri != null) {
      return standalone(redisUri != null ? redisUri : parse(uri), timeout);
    }
    if (sources != 1 || (uri != null && client == null)) {
      throw new IllegalStateException("configure exactly one of uri, cluster, client (with an optional uri) "
          + "and connection");
    }
    if (connection != null) {
      return connected(connection, connection.async(), "a Lettuce connection", false, () -> {});
    }
    if (clusterConnection != null) {
      return connected(clusterConnection, clusterConnection.async(), "a Lettuce Cluster connection", true, () -> {});
    }
    if (client != null) {
      String where = uri != null ? withoutCredentials(uri) : "a Lettuce client";
      StatefulRedisConnection<String, String> own = open(where, () -> uri != null
          ? client.connect(StringCodec.UTF8, redisUri != null ? redisUri : parse(uri)) : client.connect(StringCodec.UTF8));
      return connected(own, own.async(), where, false, own::close);
    }
    if (clusterClient != null) {
      StatefulRedisClusterConnection<String, String> own = open("a Lettuce Cluster client",
          () -> clusterClient.connect(StringCodec.UTF8));
      return connected(own, own.async(), "a Lettuce Cluster client", true, own::close);
    }
    return cluster(clusterUris.stream().map(RedisConnector::parse).toList(), timeout);
  }

  private Connected standalone(RedisURI redisUri, Duration timeout) {
    String where = withoutCredentials(uri);
    Owned owned = new Owned();
    try {
      RedisClient own = RedisClient.create(owned.resources, redisUri);
      owned.client = own;
      own.setOptions(ClientOptions.builder().autoReconnect(true)
          .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
          .socketOptions(socketOptions(timeout))
          .timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build())
          .build());
      StatefulRedisConnection<String, String> connection = open(where, () -> own.connect(StringCodec.UTF8));
      owned.connection = connection;
      return connected(connection, connection.async(), where, false, owned::close);
    } catch (RuntimeException e) {
      owned.close();
      throw e;
    }
  }

  private Connected cluster(List<RedisURI> uris, Duration timeout) {
    String where = "Redis Cluster " + clusterUris.stream().map(RedisConnector::withoutCredentials).toList();
    Owned owned = new Owned();
    try {
      RedisClusterClient own = RedisClusterClient.create(owned.resources, uris);
      owned.client = own;
      own.setOptions(ClusterClientOptions.builder().autoReconnect(true)
          .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
          .socketOptions(socketOptions(timeout))
          .timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build())
          .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder().enableAllAdaptiveRefreshTriggers().build())
          .build());
      StatefulRedisClusterConnection<String, String> connection = open(where, () -> own.connect(StringCodec.UTF8));
      owned.connection = connection;
      return connected(connection, connection.async(), where, true, owned::close);
    } catch (RuntimeException e) {
      owned.close();
      throw e;
    }
  }

  private static Connected connected(StatefulConnection<?, ?> on, RedisClusterAsyncCommands<String, String> commands,
      String where, boolean cluster, Runnable closer) {
    return new Connected(commands, on.getResources().timer(), where, cluster, closer);
  }

  private static SocketOptions socketOptions(Duration timeout) {
    // connecting may take longer than a command, but not much: reconnects should notice soon
    return SocketOptions.builder().connectTimeout(timeout.compareTo(Duration.ofSeconds(1)) > 0 ? timeout
        : Duration.ofSeconds(1)).build();
  }

  private static <C> C open(String where, Supplier<C> connect) {
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

  static String withoutCredentials(String uri) {
    return CREDENTIALS.matcher(uri).replaceAll("");
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
    AbstractRedisClient client;
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

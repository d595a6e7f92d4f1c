package dev.ratelimit.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real Redis Sentinel ({@code redis-server sentinel.conf --sentinel}) on a free port, watching
 * one master under the name {@link #MASTER}, with a quorum of one and short timeouts, for tests.
 */
public final class RedisSentinel implements AutoCloseable {
  public static final String MASTER = "mymaster";

  private final int port;
  private final Process process;

  private RedisSentinel(int port, Process process) {
    this.port = port;
    this.process = process;
  }

  /** Starts a sentinel watching {@code master}; it declares it down after {@code downAfterMillis}. */
  public static RedisSentinel watching(RedisServer master, long downAfterMillis) {
    try {
      int port = RedisServer.freePort();
      Path directory = Files.createTempDirectory("sentinel-" + port + "-");
      Path config = directory.resolve("sentinel.conf");
      Files.writeString(config, String.join("\n",
          "port " + port,
          "bind 127.0.0.1",
          "dir " + directory,
          "sentinel monitor " + MASTER + " 127.0.0.1 " + master.port() + " 1",
          "sentinel down-after-milliseconds " + MASTER + " " + downAfterMillis,
          "sentinel failover-timeout " + MASTER + " 10000",
          ""));
      Process process = new ProcessBuilder(List.of("redis-server", config.toString(), "--sentinel"))
          .redirectErrorStream(true).redirectOutput(directory.resolve("sentinel.log").toFile()).start();
      RedisSentinel sentinel = new RedisSentinel(port, process);
      sentinel.awaitListening(directory);
      return sentinel;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void awaitListening(Path directory) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("redis-server --sentinel exited: " + Files.readString(directory.resolve("sentinel.log")));
      }
      try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
        if (socket.isConnected()) {
          return;
        }
      } catch (IOException notYet) {
        Thread.onSpinWait();
      }
    }
    throw new IllegalStateException("sentinel on port " + port + " did not listen within 10 s");
  }

  /**
   * Whether this sentinel knows {@code replica} as a healthy replica of the master, so that it can
   * promote it. A sentinel learns replicas from the master's {@code INFO}, which it asks for every
   * ten seconds: a replica that attached after the last time is not yet a candidate.
   */
  public boolean knowsHealthyReplica(RedisServer replica) {
    Object replicas = RedisServer.call(port, "SENTINEL", "REPLICAS", MASTER);
    for (Object fields : (List<?>) replicas) {
      List<?> pairs = (List<?>) fields;
      Map<Object, Object> entry = new HashMap<>();
      for (int i = 0; i + 1 < pairs.size(); i += 2) {
        entry.put(pairs.get(i), pairs.get(i + 1));
      }
      if (Integer.toString(replica.port()).equals(entry.get("port")) && "slave".equals(entry.get("flags"))
          && "ok".equals(entry.get("master-link-status"))) {
        return true;
      }
    }
    return false;
  }

  public int port() {
    return port;
  }

  /** {@code redis-sentinel://127.0.0.1:PORT#mymaster} */
  public String uri() {
    return "redis-sentinel://127.0.0.1:" + port + "#" + MASTER;
  }

  @Override
  public void close() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

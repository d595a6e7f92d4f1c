package dev.ratelimit.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Redis Cluster of real {@code redis-server} processes for tests: masters on free loopback
 * ports ({@code --cluster-enabled yes}), joined by {@code redis-cli --cluster create} with every
 * slot assigned, no replicas. Stopped by {@link #close}.
 */
public final class RedisCluster implements AutoCloseable {
  private final List<RedisServer> nodes;

  private RedisCluster(List<RedisServer> nodes) {
    this.nodes = nodes;
  }

  /** Starts the masters, creates the cluster and waits until every node reports it ready. */
  public static RedisCluster start(int masters) {
    List<RedisServer> nodes = new ArrayList<>();
    try {
      for (int i = 0; i < masters; i++) {
        nodes.add(RedisServer.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", "5000"));
      }
      List<String> command = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
      nodes.forEach(node -> command.add("127.0.0.1:" + node.port()));
      command.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
      Process create = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(create.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!create.waitFor(60, TimeUnit.SECONDS) || create.exitValue() != 0) {
        throw new IllegalStateException("redis-cli --cluster create failed: " + output);
      }
      RedisCluster cluster = new RedisCluster(nodes);
      cluster.awaitReady();
      return cluster;
    } catch (IOException e) {
      nodes.forEach(RedisServer::close);
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      nodes.forEach(RedisServer::close);
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (RuntimeException e) {
      nodes.forEach(RedisServer::close);
      throw e;
    }
  }

  private void awaitReady() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!nodes.stream().allMatch(this::ready)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("cluster not ready within 30 s: " + nodes.get(0).call("CLUSTER", "INFO"));
      }
      Thread.onSpinWait();
    }
  }

  /** The node sees every slot served and every other node. */
  private boolean ready(RedisServer node) {
    String info = (String) node.call("CLUSTER", "INFO");
    return info.contains("cluster_state:ok") && info.contains("cluster_slots_ok:16384")
        && info.contains("cluster_known_nodes:" + nodes.size());
  }

  public List<RedisServer> nodes() {
    return nodes;
  }

  /** {@code redis://127.0.0.1:PORT} of every node. */
  public List<String> uris() {
    return nodes.stream().map(RedisServer::uri).toList();
  }

  @Override
  public void close() {
    nodes.forEach(RedisServer::close);
  }
}

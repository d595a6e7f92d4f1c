package dev.ratelimit.bucket4j;

import com.hazelcast.cache.impl.HazelcastServerCachingProvider;
import com.hazelcast.config.CacheConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastException;
import com.hazelcast.core.HazelcastInstance;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.cache.Cache;
import javax.cache.CacheManager;

/**
 * An embedded Hazelcast cluster in the test JVM: members on 127.0.0.1 at free ports, joined over
 * TCP-IP (no multicast), a cluster name of its own, few partitions so that startup and migration
 * are quick. One per test class: a member takes a few seconds to start.
 */
final class HazelcastCluster implements AutoCloseable {
  private final List<HazelcastInstance> members = new ArrayList<>();

  private HazelcastCluster() {}

  static HazelcastCluster start(int size) {
    for (int attempt = 1; ; attempt++) {
      try {
        return startOnce(size);
      } catch (HazelcastException e) {
        // a port found free was taken before the member bound it (another process's ephemeral
        // port, as seen on a busy CI machine): pick new ports
        if (attempt == 5 || !boundTaken(e)) {
          throw e;
        }
      }
    }
  }

  private static HazelcastCluster startOnce(int size) {
    List<Integer> ports = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      ports.add(freePort());
    }
    String name = "rate-limit-" + UUID.randomUUID();
    HazelcastCluster cluster = new HazelcastCluster();
    try {
      for (int port : ports) {
        cluster.members.add(Hazelcast.newHazelcastInstance(config(name, port, ports)));
      }
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  private static boolean boundTaken(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof java.net.BindException) {
        return true;
      }
    }
    return false;
  }

  private static Config config(String clusterName, int port, List<Integer> ports) {
    Config config = new Config().setClusterName(clusterName).setInstanceName(clusterName + "-" + port);
    config.setProperty("hazelcast.partition.count", "23");
    config.setProperty("hazelcast.logging.type", "none");
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.local.localAddress", "127.0.0.1"); // loopback only
    config.getNetworkConfig().setPort(port).setPortAutoIncrement(false)
        .getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    JoinConfig join = config.getNetworkConfig().getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true);
    for (int member : ports) {
      join.getTcpIpConfig().addMember("127.0.0.1:" + member);
    }
    return config;
  }

  HazelcastInstance member(int index) {
    return members.get(index);
  }

  /**
   * A JCache cache of bucket states on the cluster, through {@code member}'s caching provider,
   * with one synchronous backup so that a member may leave without losing state.
   */
  Cache<String, byte[]> cache(int member, String name) {
    CacheManager manager = new HazelcastServerCachingProvider(members.get(member)).getCacheManager();
    Cache<String, byte[]> existing = manager.getCache(name, String.class, byte[].class);
    if (existing != null) {
      return existing;
    }
    CacheConfig<String, byte[]> config = new CacheConfig<>();
    config.setTypes(String.class, byte[].class);
    config.setBackupCount(1);
    return manager.createCache(name, config);
  }

  @Override
  public void close() {
    for (HazelcastInstance member : members) {
      member.getLifecycleService().terminate();
    }
  }

  /** A loopback port nothing listens on now (the members start right away). */
  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

package dev.ratelimit.benchmarks.bucket4j;

import dev.ratelimit.Limit;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.bucket4j.Bucket4jStore;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.proxy.RemoteBucketBuilder;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * Decisions per second and latency percentiles of the bucket4j bridge on bucket4j-lettuce against
 * a real redis-server, next to bucket4j-lettuce called directly: 1, 8 and 32 callers on one hot
 * key and on 100,000 keys, every caller a thread making blocking calls on one shared Lettuce
 * connection (as an application does).
 *
 * <pre>java -cp benchmarks.jar dev.ratelimit.benchmarks.bucket4j.RedisBridgeDriver [seconds] [redis://host:port]</pre>
 *
 * Without a URI it starts {@code redis-server} on a free loopback port (nothing persisted) and
 * stops it at the end.
 */
public final class RedisBridgeDriver {
  private static final int MANY_KEYS = 100_000;
  private static final int[] CALLERS = {1, 8, 32};
  /** Admits every call: a billion units a second, a billion at once. */
  private static final Limit LIMIT = Limit.tokenBucket(1_000_000_000L, Duration.ofSeconds(1));

  private RedisBridgeDriver() {}

  /** One way to decide: a call on a key, returning whether it was admitted. */
  private interface Subject {
    boolean call(String key);
  }

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    Process server = null;
    String uri;
    if (args.length > 1) {
      uri = args[1];
    } else {
      int port = freePort();
      Path dir = Files.createTempDirectory("redis-bench-");
      server = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "",
          "--appendonly", "no", "--dir", dir.toString()).redirectErrorStream(true)
          .redirectOutput(dir.resolve("redis.log").toFile()).start();
      awaitPort(port);
      uri = "redis://127.0.0.1:" + port;
    }
    RedisClient client = RedisClient.create(uri);
    try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
      ProxyManager<byte[]> buckets = Bucket4jLettuce.casBasedBuilder(connection).build();
      Function<String, byte[]> bytes = key -> key.getBytes(StandardCharsets.UTF_8);
      RateLimiter bridge = RateLimiter.builder().store(Bucket4jStore.of(buckets, bytes)).limit("api", LIMIT).build();
      RemoteBucketBuilder<byte[]> direct = buckets.builder();
      BucketConfiguration configuration = BucketConfiguration.builder()
          .addLimit(limit -> limit.capacity(1_000_000_000L).refillGreedy(1_000_000_000L, Duration.ofSeconds(1))).build();
      List<String> rows = new ArrayList<>();
      rows.add("| keys | callers | contender | decisions/s | p50 µs | p99 µs |");
      rows.add("|---|---|---|---|---|---|");
      for (String scenario : List.of("hot key", "100,000 keys")) {
        for (int callers : CALLERS) {
          for (String contender : List.of("bucket4j-lettuce", "bucket4j-bridge")) {
            Subject subject = contender.equals("bucket4j-bridge")
                ? key -> bridge.limit("api", key, 1).allowed()
                : key -> direct.build(bytes.apply("direct:" + key), () -> configuration).tryConsumeAndReturnRemaining(1).isConsumed();
            run(contender, subject, scenario, callers, 1); // warm-up
            rows.add(run(contender, subject, scenario, callers, seconds));
            System.out.println(rows.get(rows.size() - 1));
          }
        }
      }
      System.out.println();
      rows.forEach(System.out::println);
    } finally {
      client.shutdown();
      if (server != null) {
        server.destroy();
      }
    }
  }

  /** {@code callers} threads calling for {@code seconds}; one row of the table. */
  private static String run(String contender, Subject subject, String scenario, int callers, int seconds)
      throws InterruptedException {
    boolean hot = scenario.equals("hot key");
    long[][] latencies = new long[callers][];
    int[] counts = new int[callers];
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    long[] window = new long[2];
    for (int c = 0; c < callers; c++) {
      int caller = c;
      Thread thread = new Thread(() -> {
        long[] mine = new long[1 << 16];
        int n = 0;
        ThreadLocalRandom random = ThreadLocalRandom.current();
        try {
          start.await();
        } catch (InterruptedException e) {
          return;
        }
        long end = window[1];
        for (long now = System.nanoTime(); now < end; ) {
          String key = hot ? "hot" : "client-" + random.nextInt(MANY_KEYS);
          subject.call(key);
          long after = System.nanoTime();
          if (n == mine.length) {
            mine = Arrays.copyOf(mine, n * 2);
          }
          mine[n++] = after - now;
          now = after;
        }
        latencies[caller] = mine;
        counts[caller] = n;
      });
      thread.start();
      threads.add(thread);
    }
    window[0] = System.nanoTime();
    window[1] = window[0] + Duration.ofSeconds(seconds).toNanos();
    start.countDown();
    for (Thread thread : threads) {
      thread.join();
    }
    int total = Arrays.stream(counts).sum();
    long[] all = new long[total];
    int at = 0;
    for (int c = 0; c < callers; c++) {
      System.arraycopy(latencies[c], 0, all, at, counts[c]);
      at += counts[c];
    }
    Arrays.sort(all);
    double perSecond = total / (double) seconds;
    return String.format(Locale.ROOT, "| %s | %d | %s | %,.0f | %.0f | %.0f |", scenario, callers, contender, perSecond,
        all[total / 2] / 1e3, all[(int) (total * 0.99)] / 1e3);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static void awaitPort(int port) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
        return;
      } catch (IOException notYet) {
        Thread.sleep(50); // polling a process we started, not synchronising threads
      }
    }
    throw new IllegalStateException("redis-server did not listen on port " + port + " within 10 s");
  }
}

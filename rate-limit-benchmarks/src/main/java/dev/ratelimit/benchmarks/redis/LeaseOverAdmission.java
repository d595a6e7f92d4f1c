package dev.ratelimit.benchmarks.redis;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.redis.RedisStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts over-admission with leases (docs/design.md §4.3.3): two nodes (two RedisStores, two
 * connections, {@code lease=50}) with 16 callers each drain one hot key of a limit whose refill is
 * negligible while it runs ({@code rate=N period=36500d}: a thousandth of a unit in ten seconds),
 * far past its end. Then both nodes close (their leases go back) and a third node without leases
 * takes what is left. Admitted while leased must be at most N, and with what is left exactly N.
 * Early denials (the price of leases) are the denials before the last admission.
 *
 * <pre>java -cp rate-limit-benchmarks/target/benchmarks.jar dev.ratelimit.benchmarks.redis.LeaseOverAdmission [units] [rounds]</pre>
 */
public final class LeaseOverAdmission {
  private LeaseOverAdmission() {}

  public static void main(String[] args) throws Exception {
    if (dev.ratelimit.benchmarks.Usage.asked(args, """
        java [-Dlease=N] -cp rate-limit-benchmarks/target/benchmarks.jar dev.ratelimit.benchmarks.redis.LeaseOverAdmission [units] [rounds]
          units    the limit's capacity, drained by 2 nodes x 16 callers (default 200000)
          rounds   default 3
          -Dlease=N  units per lease (default 50; 0: no leases)
        starts its own redis-server on a free port (redis-server and redis-cli on the PATH)
        """)) {
      return;
    }
    long units = args.length > 0 ? Long.parseLong(args[0]) : 200_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    int callersPerNode = 16;
    String spec = "token-bucket rate=" + units + " period=36500d"
        + (RedisContender.LEASE > 0 ? " lease=" + RedisContender.LEASE : ""); // -Dlease=0: without leases
    try (RedisSuite.RedisProcess redis = RedisSuite.RedisProcess.start()) {
      for (int round = 1; round <= rounds; round++) {
        String name = "drain" + round;
        List<RateLimiter> nodes = List.of(node(redis, name, spec), node(redis, name, spec));
        LongAdder admitted = new LongAdder();
        LongAdder denied = new LongAdder();
        java.util.concurrent.atomic.AtomicLong lastAdmitted = new java.util.concurrent.atomic.AtomicLong(Long.MIN_VALUE);
        java.util.Queue<long[]> denialTimes = new java.util.concurrent.ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (RateLimiter node : nodes) {
          for (int t = 0; t < callersPerNode; t++) {
            Thread thread = new Thread(() -> {
              try {
                start.await();
              } catch (InterruptedException e) {
                return;
              }
              // past the end: until this caller has seen 2,000 denials in a row
              long[] deniedAt = new long[1 << 12];
              int n = 0;
              for (int inARow = 0; inARow < 2000; ) {
                if (node.named(name).limit("hot", 1).allowed()) {
                  admitted.increment();
                  lastAdmitted.accumulateAndGet(System.nanoTime(), Math::max);
                  inARow = 0;
                } else {
                  if (n == deniedAt.length) {
                    deniedAt = java.util.Arrays.copyOf(deniedAt, 2 * n);
                  }
                  deniedAt[n++] = System.nanoTime();
                  denied.increment();
                  inARow++;
                }
              }
              denialTimes.add(java.util.Arrays.copyOf(deniedAt, n));
            });
            thread.start();
            threads.add(thread);
          }
        }
        long from = System.nanoTime();
        start.countDown();
        for (Thread thread : threads) {
          thread.join();
        }
        double seconds = (System.nanoTime() - from) / 1e9;
        nodes.forEach(RateLimiter::close); // gives the leases back
        long left = 0;
        try (RateLimiter plain = node(redis, name, "token-bucket rate=" + units + " period=36500d")) {
          while (plain.named(name).limit("hot", 1).allowed()) {
            left++;
          }
        }
        long whileLeased = admitted.sum();
        // a denial before the last admission came while units were still there (held by a node,
        // or in Redis): refill is negligible, so the later admission's unit existed already
        long early = denialTimes.stream().flatMapToLong(java.util.Arrays::stream)
            .filter(at -> at < lastAdmitted.get()).count();
        System.out.printf(Locale.ROOT, "round %d: %,d units, 2 nodes x %d callers, lease %s: admitted %,d (over-admission "
            + "%d), denied %,d (%,d early: before the last admission), in %.2f s (%,.0f decisions/s); left after the leases went back %,d; admitted + left "
            + "= %,d%n", round, units, callersPerNode, RedisContender.LEASE, whileLeased,
            Math.max(0, whileLeased - units), denied.sum(), early, seconds, (whileLeased + denied.sum()) / seconds, left,
            whileLeased + left);
      }
    }
  }

  private static RateLimiter node(RedisSuite.RedisProcess redis, String name, String spec) {
    RedisStore store = RedisStore.builder().uri(redis.uri()).commandTimeout(Duration.ofSeconds(10)).build();
    return RateLimiter.builder().store(store).storeFailure(FailurePolicy.CLOSED).limit(name, spec).build();
  }
}

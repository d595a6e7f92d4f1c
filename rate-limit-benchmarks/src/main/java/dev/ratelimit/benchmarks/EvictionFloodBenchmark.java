package dev.ratelimit.benchmarks;

import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.InMemoryStore;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A legitimate hot user's latency while a flood of distinct keys pushes the default in-memory
 * store (a million keys) into eviction: one thread sends 3,000,000 one-off keys on a
 * daily quota, another calls one hot key and times every call. Prints the hot user's
 * p50/p99/p99.9/max, the flood's slowest call, and the logins an exhausted victim got back.
 * Only public API, so the same class runs against any build of core:
 * {@code java -Xms3g -Xmx3g -cp rate-limit-benchmarks/target/benchmarks.jar dev.ratelimit.benchmarks.EvictionFloodBenchmark [keys]}.
 */
public final class EvictionFloodBenchmark {
  private EvictionFloodBenchmark() {}

  public static void main(String[] args) throws Exception {
    if (Usage.asked(args, """
        java -Xms3g -Xmx3g -cp rate-limit-benchmarks/target/benchmarks.jar dev.ratelimit.benchmarks.EvictionFloodBenchmark [keys]
          keys   one-off keys the flood sends against the default 1,000,000-key store (default 3000000)
        """)) {
      return;
    }
    int keys = args.length > 0 ? Integer.parseInt(args[0]) : 3_000_000;
    RateLimiter limiter = RateLimiter.builder().store(new InMemoryStore())
        .limit("login", "token-bucket rate=5 period=15m")
        .limit("api", "quota rate=1000 cadence=day")
        .limit("hot", "token-bucket rate=100000000 period=1s").build();
    for (int i = 0; i < 6; i++) {
      limiter.named("login").limit("victim", 1);
    }
    String[] flood = new String[keys];
    for (int i = 0; i < keys; i++) {
      flood[i] = "a" + i;
    }
    AtomicBoolean flooding = new AtomicBoolean(true);
    long[] slowestFloodCall = new long[1];
    Thread flooder = new Thread(() -> {
      for (String key : flood) {
        long start = System.nanoTime();
        limiter.named("api").limit(key, 1);
        slowestFloodCall[0] = Math.max(slowestFloodCall[0], System.nanoTime() - start);
      }
      flooding.set(false);
    }, "flood");
    long[] latencies = new long[1 << 24];
    int calls = 0;
    long began = System.nanoTime();
    flooder.start();
    while (flooding.get() && calls < latencies.length) {
      long start = System.nanoTime();
      limiter.named("hot").limit("hot-user", 1);
      latencies[calls++] = System.nanoTime() - start;
      if ((calls & 63) == 0) {
        Thread.yield(); // a user between requests, not a spinning core the flood must share
      }
    }
    flooder.join();
    double seconds = (System.nanoTime() - began) / 1e9;
    int victimAdmitted = 0;
    for (int i = 0; i < 10; i++) {
      victimAdmitted += limiter.named("login").limit("victim", 1).allowed() ? 1 : 0;
    }
    long[] sorted = Arrays.copyOf(latencies, calls);
    Arrays.sort(sorted);
    System.out.printf("flood %,d keys in %.1f s; hot user %,d calls: p50 %.1f us, p99 %.1f us, p99.9 %.1f us,"
        + " max %.1f ms; slowest flood call %.1f ms; exhausted victim admitted %d of 10 after%n",
        keys, seconds, calls, at(sorted, 0.50) / 1e3, at(sorted, 0.99) / 1e3, at(sorted, 0.999) / 1e3,
        sorted[calls - 1] / 1e6, slowestFloodCall[0] / 1e6, victimAdmitted);
  }

  private static long at(long[] sorted, double quantile) {
    return sorted[(int) Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))];
  }
}

package dev.ratelimit.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * Retained heap per key: used heap after a full GC with 1,000,000 keys in a contender, minus
 * used heap before, divided by the keys. The key strings exist in both measurements, so they
 * are not counted; the map entries are. Run in a fresh JVM per contender (Suite does):
 * {@code java -Xms4g -Xmx4g -cp rate-limit-benchmarks/target/benchmarks.jar dev.ratelimit.benchmarks.HeapPerKey bucket4j}.
 */
public final class HeapPerKey {
  private HeapPerKey() {}

  public static void main(String[] args) {
    if (Usage.asked(args, """
        java -Xms4g -Xmx4g -cp rate-limit-benchmarks/target/benchmarks.jar dev.ratelimit.benchmarks.HeapPerKey [contender]
          contender   one of Suite's (default rate-limit); prints "<contender> <bytes per key>"
        """)) {
      return;
    }
    String contender = args.length > 0 ? args[0] : "rate-limit";
    System.out.printf("%s %.1f%n", contender, measure(contender, ManyKeysBenchmark.KEYS));
  }

  static double measure(String contender, int count) {
    String[] keys = ManyKeysBenchmark.keys(count);
    Contender subject = Contender.create(contender, Contender.HOLDS);
    long before = usedAfterGc();
    for (String key : keys) {
      subject.acquire(key);
    }
    long after = usedAfterGc();
    // keep both alive until measured
    if (subject.state().hashCode() == keys.length) {
      System.out.print("");
    }
    return (after - before) / (double) count;
  }

  private static long usedAfterGc() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
    }
    return used;
  }
}

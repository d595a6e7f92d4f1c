import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * Writes burst.jsonl, a minute of traffic from four clients (deterministic: a fixed seed).
 *
 * <pre>
 * java examples/traces/BurstTrace.java > examples/traces/burst.jsonl
 * java -jar rate-limit-cli/target/ratelimit.jar simulate --limit 'api=token-bucket rate=5 period=1s capacity=10' \
 *     --input examples/traces/burst.jsonl --output /dev/null --plot burst.svg
 * </pre>
 */
public class BurstTrace {
  record Hit(long t, String key) {}

  public static void main(String[] args) {
    long start = 1_772_442_000_000L; // 2026-03-02T09:00:00Z
    Random random = new Random(7);
    List<Hit> hits = new ArrayList<>();
    for (long t = 0; t < 60_000; t += 900 + random.nextInt(200)) { // steady-app: ~1 req/s, never denied
      hits.add(new Hit(t, "steady-app"));
    }
    for (long burst = 6_000; burst < 60_000; burst += 15_000) { // batch-sync: 18 at once every 15 s
      for (int i = 0; i < 18; i++) {
        hits.add(new Hit(burst + i * 35L + random.nextInt(10), "batch-sync"));
      }
    }
    for (long t = 24_000; t < 44_000; t += 40 + random.nextInt(80)) { // scraper-bot: ~12 req/s for 20 s
      hits.add(new Hit(t, "scraper-bot"));
    }
    for (long t = 3_000; t < 60_000; t += 2_000 + random.nextInt(6_000)) { // casual-user: now and then
      hits.add(new Hit(t, "casual-user"));
    }
    hits.sort(Comparator.comparingLong(Hit::t));
    for (Hit hit : hits) {
      System.out.println("{\"t\": " + (start + hit.t()) + ", \"key\": \"" + hit.key() + "\"}");
    }
  }
}

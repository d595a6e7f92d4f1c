package dev.ratelimit.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The in-memory comparison in one command (docs/benchmarks.md §1): every benchmark for every
 * contender, in rounds (one fork each per round, so contenders alternate A/B/A/B on a noisy
 * machine), then retained heap per key in a fresh JVM per contender and round; medians across
 * rounds, and each of ours held to the fastest peer, to bucket4j and to the floor.
 *
 * <pre>java -cp rate-limit-benchmarks/target/benchmarks.jar dev.ratelimit.benchmarks.Suite [rounds] [report.md]</pre>
 */
public final class Suite {
  private static final List<String> CONTENDERS = List.of(System.getProperty("contenders",
      "rate-limit,rate-limit-named,rate-limit-admit,rate-limit-coarse,rate-limit-bucket4j,bucket4j,resilience4j,guava,map-lookup,"
          + "map-clock-cas").split(","));
  /**
   * Ours, each held to the peers in rows of its own: by name, by a named limiter (its decision,
   * and its admit answer alone), on the coarse clock, and on the bucket4j bridge.
   */
  private static final List<String> OURS =
      List.of("rate-limit", "rate-limit-named", "rate-limit-admit", "rate-limit-coarse", "rate-limit-bucket4j");
  /** The peers whose fastest the report's targets hold rate-limit to, cell by cell. */
  private static final List<String> PEERS = List.of("bucket4j", "resilience4j", "guava");
  /** Not a limiter: a map lookup, one clock read and one compare-and-set, under any lock-free limiter that reads a clock. */
  private static final String FLOOR = "map-clock-cas";
  private static final String USAGE = """
      java [-D...] -cp rate-limit-benchmarks/target/benchmarks.jar dev.ratelimit.benchmarks.Suite [rounds] [report.md]
        rounds      one JMH fork per benchmark and contender per round, contenders interleaved (default 3)
        report.md   where the table goes (default rate-limit-benchmarks/target/benchmarks.md)
      system properties:
        -Dcontenders=a,b,...  default rate-limit,rate-limit-named,rate-limit-admit,rate-limit-coarse,
                              rate-limit-bucket4j,bucket4j,resilience4j,guava,map-lookup,map-clock-cas
        -Dinclude=REGEX       the JMH benchmarks (default HotKeyBenchmark|ManyKeysBenchmark)
        -DskipHeap=true       no heap per key (HeapPerKey, a fresh JVM per contender and round)
      """;
  /**
   * A fixed heap, touched before the run: without pre-touch, the first pass of allocation over a
   * grown young generation page-faults on fresh memory, which slows a contender that allocates
   * little (it is still on that first pass when measured) by up to 4×, and one that allocates a
   * lot not at all.
   */
  private static final String[] JVM = {"-Xms4g", "-Xmx4g", "-XX:+UseG1GC", "-XX:+AlwaysPreTouch"};

  private Suite() {}

  public static void main(String[] args) throws RunnerException, IOException, InterruptedException {
    if (Usage.asked(args, USAGE)) {
      return;
    }
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    Path report = Path.of(args.length > 1 ? args[1] : "rate-limit-benchmarks/target/benchmarks.md");
    String include = System.getProperty("include", "HotKeyBenchmark|ManyKeysBenchmark");
    Map<String, List<Double>> scores = new LinkedHashMap<>();
    for (int round = 1; round <= rounds; round++) {
      System.out.printf("%n=== round %d of %d ===%n", round, rounds);
      Options options = new OptionsBuilder().include(include).forks(1)
          .param("contender", CONTENDERS.toArray(String[]::new))
          .warmupIterations(3).warmupTime(TimeValue.seconds(1))
          .measurementIterations(5).measurementTime(TimeValue.seconds(1))
          .jvmArgsAppend(JVM).build();
      Collection<RunResult> results = new Runner(options).run();
      for (RunResult result : results) {
        String benchmark = result.getParams().getBenchmark();
        String name = benchmark.substring(benchmark.lastIndexOf('.', benchmark.lastIndexOf('.') - 1) + 1);
        String limit = result.getParams().getParam("limit");
        String key = name + (limit != null ? " " + limit : "") + " | " + result.getParams().getParam("contender");
        scores.computeIfAbsent(key, k -> new ArrayList<>()).add(result.getPrimaryResult().getScore());
      }
      for (String contender : Boolean.getBoolean("skipHeap") ? List.<String>of() : CONTENDERS) {
        scores.computeIfAbsent("HeapPerKey | " + contender, k -> new ArrayList<>()).add(heapPerKey(contender));
      }
    }
    String table = table(scores, rounds);
    System.out.println();
    System.out.println(table);
    Files.createDirectories(report.toAbsolutePath().getParent());
    Files.writeString(report, table);
    System.out.println("written to " + report);
  }

  /** Runs {@link HeapPerKey} in a fresh JVM, so nothing else is on its heap. */
  private static double heapPerKey(String contender) throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java));
    command.addAll(List.of(JVM));
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), HeapPerKey.class.getName(), contender));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String last = "";
    try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        last = line;
      }
    }
    if (process.waitFor() != 0) {
      throw new IllegalStateException("HeapPerKey " + contender + " failed: " + last);
    }
    return Double.parseDouble(last.substring(last.lastIndexOf(' ') + 1));
  }

  /**
   * Medians per scenario and contender (throughput as ns per operation and per thread too), then
   * each of ours against the fastest peer, bucket4j and the floor.
   */
  static String table(Map<String, List<Double>> scores, int rounds) {
    Map<String, Map<String, Double>> medians = new LinkedHashMap<>();
    scores.forEach((key, values) -> {
      String[] parts = key.split(" \\| ");
      medians.computeIfAbsent(parts[0], k -> new LinkedHashMap<>()).put(parts[1], median(values));
    });
    StringBuilder out = new StringBuilder();
    out.append("Medians of ").append(rounds).append(" rounds (one fork each, contenders interleaved). ")
        .append("Throughput in million operations per second over all threads; ns/op per thread in brackets; "
            + "heap in bytes per key.\n\n");
    out.append("| scenario |");
    CONTENDERS.forEach(c -> out.append(' ').append(c).append(" |"));
    out.append("\n|---|");
    CONTENDERS.forEach(c -> out.append("---|"));
    out.append('\n');
    medians.forEach((scenario, byContender) -> {
      boolean heap = scenario.equals("HeapPerKey");
      int threads = scenario.contains("twoThreads") ? 2 : 1;
      out.append("| ").append(scenario).append(" |");
      for (String contender : CONTENDERS) {
        Double value = byContender.get(contender);
        out.append(' ').append(value == null ? "" : heap ? format("%.1f", value)
            : format("%.2f (%.0f ns)", value, 1000 * threads / value)).append(" |");
      }
      out.append('\n');
    });
    out.append("\nOurs against the others, per scenario: throughput ÷ throughput, or their bytes per key ÷ ours "
        + "(above 1: ours is faster or smaller); and ns per decision (bytes per key) ÷ the floor's (").append(FLOOR)
        .append(": a map lookup, one clock read, one compare-and-set).\n\n");
    out.append("| scenario | contender | ÷ fastest peer | the fastest peer | ÷ bucket4j | cost ÷ the floor's |\n");
    out.append("|---|---|---|---|---|---|\n");
    medians.forEach((scenario, byContender) -> {
      boolean heap = scenario.equals("HeapPerKey");
      // the fastest peer: the highest throughput, or the fewest bytes per key
      String fastest = PEERS.stream().filter(byContender::containsKey)
          .reduce((a, b) -> (heap ? byContender.get(b) < byContender.get(a) : byContender.get(b) > byContender.get(a)) ? b : a)
          .orElse(null);
      for (String ours : OURS) {
        Double value = byContender.get(ours);
        if (value == null) {
          continue;
        }
        Double floor = byContender.get(FLOOR);
        out.append(format("| %s | %s | %s | %s | %s | %s |%n", scenario, ours,
            ratio(value, fastest == null ? null : byContender.get(fastest), heap), fastest == null ? "" : fastest,
            ratio(value, byContender.get("bucket4j"), heap),
            floor == null ? "" : format("%.2f×", heap ? value / floor : floor / value)));
      }
    });
    out.append("\nRaw scores per round:\n\n");
    scores.forEach((key, values) -> out.append("- ").append(key).append(": ").append(values).append('\n'));
    return out.toString();
  }

  /** Ours over theirs, above 1 when ours is better: throughput ÷ throughput, their heap ÷ ours. */
  private static String ratio(Double ours, Double theirs, boolean heap) {
    if (ours == null || theirs == null) {
      return "";
    }
    return format("%.2f×", heap ? theirs / ours : ours / theirs);
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static String format(String pattern, Object... values) {
    return String.format(Locale.ROOT, pattern, values);
  }
}

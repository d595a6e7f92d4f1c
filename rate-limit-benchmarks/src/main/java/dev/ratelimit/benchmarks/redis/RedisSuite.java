package dev.ratelimit.benchmarks.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * The Redis comparison in one run: rate-limit's RedisStore (coalescing, and one script per
 * decision) against bucket4j's Lettuce ProxyManager (plain and batching) on one
 * {@code redis-server} that this program starts; a hot key and 100,000 keys; 1, 8 and 32
 * concurrent callers. Decisions per second, p50/p99 latency, and Redis commands per decision from
 * {@code INFO commandstats}; {@code redis-benchmark}'s bare {@code EVALSHA} and {@code GET} on the
 * same server for scale. Rounds interleave every contender and scenario (the machine is noisy);
 * the report gives medians.
 *
 * <pre>java -cp rate-limit-benchmarks/target/benchmarks.jar dev.ratelimit.benchmarks.redis.RedisSuite [rounds] [report.md]</pre>
 *
 * System properties: {@code warmup} and {@code measure} (seconds per run, default 2 and 4);
 * {@code callers}, {@code scenarios}, {@code contenders} to run a part of the table.
 *
 * <p>Redis CPU per decision comes two ways: the scripts' own time ({@code INFO commandstats} usec
 * of {@code EVAL}, {@code EVALSHA} and {@code FCALL}, which include the commands they run), and
 * the whole server's ({@code INFO cpu} used_cpu_sys + used_cpu_user, which adds reading and
 * writing the sockets), each as the measured window's delta over its decisions. CPU time inside
 * Redis depends much less on the machine's other load than decisions per second do, but it does
 * depend on the client's pace: the same script costs redis-server about 17 µs per call when a
 * socket read brings in 32 calls and 30 µs when it brings in one. So the server's user and sys
 * shares, its socket reads, its sleeps (voluntary context switches) and preemptions, and the bytes
 * in and out, each per decision, are columns too; and {@code rate-limit-script} sends the store's
 * own script call the way {@code lua-token-bucket} sends its own, to tell the script's cost from
 * the client's pace.
 */
public final class RedisSuite {
  private static final int KEYS = 100_000;
  /** System properties {@code callers}, {@code scenarios} and {@code contenders} (comma-separated) narrow a run. */
  private static final int[] CALLERS = java.util.Arrays.stream(System.getProperty("callers", "1,8,32").split(","))
      .mapToInt(Integer::parseInt).toArray();
  private static final String[] SCENARIOS = System.getProperty("scenarios", "hot key,100k keys").split(",");
  private static final List<String> CONTENDERS = System.getProperty("contenders") == null ? RedisContender.NAMES
      : List.of(System.getProperty("contenders").split(","));

  private RedisSuite() {}

  /**
   * One timed run.
   *
   * @param clientCommands commands the client sent per decision (counted by Lettuce)
   * @param commandsPerDecision commands Redis ran per decision ({@code INFO commandstats}: the
   *     client's and the scripts' own calls)
   * @param scriptMicros microseconds Redis spent in scripts per decision (commandstats usec)
   * @param cpuMicros redis-server CPU per decision (used_cpu_sys + used_cpu_user)
   * @param jvmMicros this JVM's CPU per decision (the callers, Lettuce, the client's batching, GC):
   *     where Redis is not the limit, the client is, on the same cores
   * @param threads where the JVM's CPU went, and the bytes it allocated, per decision
   * @param server how redis-server spent its CPU, and what it read and wrote, per decision
   */
  record Run(double perSecond, double p50Millis, double p99Millis, double clientCommands,
      Map<String, Double> commandsPerDecision, double scriptMicros, double cpuMicros, double jvmMicros,
      ThreadShare threads, ServerShare server) {}

  /**
   * redis-server's side of a decision, beyond its CPU total: what instruction counts (callgrind,
   * user space only, on a pipelined synthetic call) leave out. Redis's CPU per call is not a
   * property of the script alone: a client that sends fewer commands per socket read makes Redis
   * pay a read, a write and an {@code epoll_wait} (and, when it found nothing to do, a sleep and a
   * wake-up) for fewer decisions; the kernel's part is sys time.
   *
   * @param userMicros used_cpu_user per decision (the scripts, the commands, parsing replies)
   * @param sysMicros used_cpu_sys per decision (the socket reads and writes, epoll, wake-ups)
   * @param reads socket reads per decision (total_reads_processed; its inverse is the decisions
   *     one read brought in)
   * @param sleeps the times redis-server went to sleep per decision (its voluntary context
   *     switches, /proc/pid/status): each is a wake-up, with the caches cold, for what came next
   * @param preemptions its involuntary context switches per decision: taken off the core mid-work
   *     by another runnable thread (the client's, on this machine's two cores)
   * @param bytesIn bytes the clients sent per decision (total_net_input_bytes)
   * @param bytesOut bytes Redis replied per decision (total_net_output_bytes)
   */
  record ServerShare(double userMicros, double sysMicros, double reads, double sleeps, double preemptions,
      double bytesIn, double bytesOut) {}

  /**
   * One reading of redis-server's counters: one {@code INFO everything} (commandstats, cpu,
   * stats) and its {@code /proc/<pid>/status}, so that every figure of a run spans the same window.
   */
  record ServerCounters(Map<String, Long> calls, long scriptMicros, double userSeconds, double sysSeconds,
      long reads, long bytesIn, long bytesOut, long sleeps, long preemptions) {

    static ServerCounters read(RedisCommands<String, String> admin, long pid) {
      Map<String, Long> calls = new TreeMap<>();
      Map<String, String> fields = new java.util.HashMap<>();
      long scriptMicros = 0;
      for (String line : admin.info("everything").split("\r?\n")) {
        int colon = line.indexOf(':');
        if (colon < 0) {
          continue;
        }
        if (line.startsWith("cmdstat_")) {
          String command = line.substring("cmdstat_".length(), colon);
          calls.put(command, field(line, "calls="));
          if (command.startsWith("eval") || command.startsWith("fcall")) {
            scriptMicros += field(line, "usec=");
          }
        } else {
          fields.put(line.substring(0, colon), line.substring(colon + 1).strip());
        }
      }
      Map<String, Long> status = procStatus(pid);
      return new ServerCounters(calls, scriptMicros, Double.parseDouble(fields.get("used_cpu_user")),
          Double.parseDouble(fields.get("used_cpu_sys")), Long.parseLong(fields.get("total_reads_processed")),
          Long.parseLong(fields.get("total_net_input_bytes")), Long.parseLong(fields.get("total_net_output_bytes")),
          status.getOrDefault("voluntary_ctxt_switches", 0L), status.getOrDefault("nonvoluntary_ctxt_switches", 0L));
    }

    /** The server's side of {@code decisions} from {@code before} to this reading. */
    ServerShare since(ServerCounters before, long decisions) {
      double n = decisions;
      return new ServerShare((userSeconds - before.userSeconds) * 1e6 / n, (sysSeconds - before.sysSeconds) * 1e6 / n,
          (reads - before.reads) / n, (sleeps - before.sleeps) / n, (preemptions - before.preemptions) / n,
          (bytesIn - before.bytesIn) / n, (bytesOut - before.bytesOut) / n);
    }

    private static long field(String line, String name) {
      int from = line.indexOf(name) + name.length();
      return Long.parseLong(line.substring(from, line.indexOf(',', from)));
    }

    /** The context switch counts of a process ({@code -1} where /proc is missing: zero deltas). */
    private static Map<String, Long> procStatus(long pid) {
      Map<String, Long> counts = new TreeMap<>();
      try {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
          if (line.contains("ctxt_switches:")) {
            counts.put(line.substring(0, line.indexOf(':')), Long.parseLong(line.substring(line.indexOf(':') + 1).strip()));
          }
        }
      } catch (IOException | RuntimeException e) {
        counts.clear(); // not Linux: the columns read 0
      }
      return counts;
    }
  }

  /**
   * The JVM's CPU per decision by thread: the callers' threads, Lettuce's event loops, and the
   * rest (JIT compilers, GC, timers: the process's CPU less every visible thread's), which a short
   * run inflates with compilation; and the bytes the callers and event loops allocated. The first
   * two are what a decision costs the client once warm, and move less with the machine's load.
   */
  record ThreadShare(double callerMicros, double eventLoopMicros, double restMicros, double bytes) {}

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();

  /**
   * The process's CPU time, and the CPU time and allocated bytes of Lettuce's event loops (which
   * outlive a run; the callers' threads, which end with it, count their own).
   */
  static final class ThreadCounters {
    final long process = jvmCpuNanos();
    long eventLoopNanos;
    long eventLoopBytes;

    static ThreadCounters now() {
      ThreadCounters counters = new ThreadCounters();
      long[] ids = THREADS.getAllThreadIds();
      java.lang.management.ThreadInfo[] infos = THREADS.getThreadInfo(ids);
      long[] cpu = THREADS.getThreadCpuTime(ids);
      long[] allocated = THREADS.getThreadAllocatedBytes(ids);
      for (int i = 0; i < ids.length; i++) {
        if (infos[i] != null && cpu[i] >= 0 && infos[i].getThreadName().startsWith("lettuce-")
            && infos[i].getThreadName().contains("EventLoop")) {
          counters.eventLoopNanos += cpu[i];
          counters.eventLoopBytes += allocated[i];
        }
      }
      return counters;
    }

    /** Per decision from {@code before} to this, with what the callers counted of their own. */
    ThreadShare since(ThreadCounters before, long decisions, long callerNanos, long callerBytes) {
      long loops = eventLoopNanos - before.eventLoopNanos;
      long rest = (process - before.process) - callerNanos - loops;
      return new ThreadShare(callerNanos / 1e3 / decisions, loops / 1e3 / decisions, rest / 1e3 / decisions,
          (double) (callerBytes + eventLoopBytes - before.eventLoopBytes) / decisions);
    }
  }

  /** Counts the commands Lettuce sends while it is on. */
  static final class CommandCounter implements CommandListener {
    final LongAdder sent = new LongAdder();
    volatile boolean on;

    @Override
    public void commandStarted(CommandStartedEvent event) {
      if (on) {
        sent.increment();
      }
    }
  }

  private static final String USAGE = """
      java [-D...] -cp rate-limit-benchmarks/target/benchmarks.jar dev.ratelimit.benchmarks.redis.RedisSuite [rounds] [report.md]
        rounds      every scenario, number of callers and contender once per round, interleaved (default 3)
        report.md   where the tables go (default rate-limit-benchmarks/target/benchmarks-redis.md)
      starts its own redis-server on a free port; redis-server, redis-cli and redis-benchmark must be on the PATH
      system properties:
        -Dwarmup=S -Dmeasure=S  seconds per run (default 2 and 4)
        -Dcallers=1,8,32        concurrent callers (default 1,8,32)
        -Dscenarios=...         "hot key", "100k keys" (default both)
        -Dcontenders=a,b,...    default %s
        -Dlease=N               units per lease of rate-limit-lease (default 50)
      """.formatted(String.join(",", RedisContender.NAMES));

  public static void main(String[] args) throws Exception {
    if (dev.ratelimit.benchmarks.Usage.asked(args, USAGE)) {
      return;
    }
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    Path report = Path.of(args.length > 1 ? args[1] : "rate-limit-benchmarks/target/benchmarks-redis.md");
    Duration warmup = Duration.ofSeconds(Long.getLong("warmup", 2));
    Duration measure = Duration.ofSeconds(Long.getLong("measure", 4));
    Map<String, List<Run>> runs = new LinkedHashMap<>();
    Map<String, List<Double>> baselines = new LinkedHashMap<>();
    try (RedisProcess redis = RedisProcess.start()) {
      RedisClient client = RedisClient.create(redis.uri());
      CommandCounter counter = new CommandCounter();
      client.addListener(counter);
      RedisClient adminClient = RedisClient.create(redis.uri());
      try (StatefulRedisConnection<String, String> admin = adminClient.connect()) {
        RedisCommands<String, String> commands = admin.sync();
        // a short run of each on every scenario with the most callers first, so that no contender
        // meets a cold JIT in round one: without it, compiling took up to 29 µs of JVM CPU per
        // decision ("rest") in round one's hot-key runs, on the same two cores as redis-server;
        // with it, under 5
        int most = Arrays.stream(CALLERS).max().orElse(8);
        for (String contender : CONTENDERS) {
          for (String scenario : SCENARIOS) {
            try (RedisContender subject = RedisContender.create(contender, client)) {
              run(subject, scenario.equals("hot key"), most, Duration.ofSeconds(1), Duration.ofSeconds(1), commands,
                  redis.pid(), counter);
            }
            commands.flushall();
          }
        }
        for (int round = 1; round <= rounds; round++) {
          System.out.printf("%n=== round %d of %d ===%n", round, rounds);
          for (Map.Entry<String, Double> baseline : redis.baselines().entrySet()) {
            baselines.computeIfAbsent(baseline.getKey(), k -> new ArrayList<>()).add(baseline.getValue());
            System.out.printf(Locale.ROOT, "%-60s %,10.0f/s%n", baseline.getKey(), baseline.getValue());
          }
          for (String scenario : SCENARIOS) {
            for (int callers : CALLERS) {
              List<String> order = new ArrayList<>(CONTENDERS);
              java.util.Collections.rotate(order, round); // a different contender first each round
              for (String contender : order) {
                commands.flushall();
                Run run;
                try (RedisContender subject = RedisContender.create(contender, client)) {
                  run = run(subject, scenario.equals("hot key"), callers, warmup, measure, commands, redis.pid(), counter);
                }
                runs.computeIfAbsent(key(scenario, callers, contender), k -> new ArrayList<>()).add(run);
                System.out.printf(Locale.ROOT, "%-10s %2d callers %-24s %,10.0f/s  p50 %7.3f ms  p99 %8.3f ms  "
                    + "script %6.2f us  cpu %6.2f us  jvm %6.2f us (callers %6.2f, event loops %6.2f, rest %6.2f; "
                    + "%,6.0f B)  server user %5.2f sys %5.2f us, %.3f reads, %.3f sleeps, %.3f preempted, "
                    + "%.0f B in, %.0f B out  %.3f cmd/decision %s%n",
                    scenario, callers, contender, run.perSecond(), run.p50Millis(), run.p99Millis(),
                    run.scriptMicros(), run.cpuMicros(), run.jvmMicros(), run.threads().callerMicros(),
                    run.threads().eventLoopMicros(), run.threads().restMicros(), run.threads().bytes(),
                    run.server().userMicros(), run.server().sysMicros(), run.server().reads(), run.server().sleeps(),
                    run.server().preemptions(), run.server().bytesIn(), run.server().bytesOut(),
                    run.clientCommands(), run.commandsPerDecision());
              }
            }
          }
        }
      } finally {
        client.shutdown();
        adminClient.shutdown();
      }
      String table = table(runs, baselines, rounds, warmup, measure, redis.version());
      System.out.println();
      System.out.println(table);
      Files.createDirectories(report.toAbsolutePath().getParent());
      Files.writeString(report, table);
      System.out.println("written to " + report);
    }
  }

  private static String key(String scenario, int callers, String contender) {
    return scenario + " | " + callers + " | " + contender;
  }

  /** Callers calling as fast as they can: a warm-up, then a measured window between two INFO readings. */
  static Run run(RedisContender subject, boolean hot, int callers, Duration warmup, Duration measure,
      RedisCommands<String, String> admin, long serverPid, CommandCounter counter) throws InterruptedException {
    Thread[] threads = new Thread[callers];
    long[][] latencies = new long[callers][];
    int[] counts = new int[callers];
    LongAdder decisions = new LongAdder();
    // each caller's own CPU time and allocated bytes while it measured
    LongAdder callerNanos = new LongAdder();
    LongAdder callerBytes = new LongAdder();
    Phase phase = new Phase();
    CountDownLatch started = new CountDownLatch(callers);
    for (int t = 0; t < callers; t++) {
      int id = t;
      threads[t] = new Thread(() -> {
        long[] mine = new long[1 << 16];
        int n = 0;
        long cpuFrom = -1;
        long bytesFrom = 0;
        started.countDown();
        for (;;) {
          int now = phase.value;
          if (now == Phase.STOP) {
            break;
          }
          if (now == Phase.MEASURED && cpuFrom < 0) {
            cpuFrom = THREADS.getCurrentThreadCpuTime();
            bytesFrom = THREADS.getCurrentThreadAllocatedBytes();
          }
          String key = hot ? "hot" : "user-" + ThreadLocalRandom.current().nextInt(KEYS);
          long start = System.nanoTime();
          if (!subject.acquire(key)) {
            throw new IllegalStateException("a call was denied: the limit admits every call");
          }
          long took = System.nanoTime() - start;
          if (now == Phase.MEASURED) {
            if (n == mine.length) {
              mine = Arrays.copyOf(mine, 2 * n);
            }
            mine[n++] = took;
            decisions.increment();
          }
        }
        if (cpuFrom >= 0) {
          callerNanos.add(THREADS.getCurrentThreadCpuTime() - cpuFrom);
          callerBytes.add(THREADS.getCurrentThreadAllocatedBytes() - bytesFrom);
        }
        latencies[id] = mine;
        counts[id] = n;
      }, "caller-" + t);
      threads[t].start();
    }
    started.await();
    Thread.sleep(warmup.toMillis());
    ServerCounters before = ServerCounters.read(admin, serverPid);
    ThreadCounters threadsBefore = ThreadCounters.now();
    long sentBefore = counter.sent.sum();
    counter.on = true;
    long from = System.nanoTime();
    phase.value = Phase.MEASURED;
    Thread.sleep(measure.toMillis());
    phase.value = Phase.STOP;
    long to = System.nanoTime();
    counter.on = false;
    long sent = counter.sent.sum() - sentBefore;
    ServerCounters after = ServerCounters.read(admin, serverPid);
    for (Thread thread : threads) {
      thread.join();
    }
    // after the callers' last calls, which they counted in their own time
    ThreadCounters threadsAfter = ThreadCounters.now();
    long total = decisions.sum();
    long[] all = new long[(int) Arrays.stream(counts).asLongStream().sum()];
    int at = 0;
    for (int t = 0; t < callers; t++) {
      System.arraycopy(latencies[t], 0, all, at, counts[t]);
      at += counts[t];
    }
    Arrays.sort(all);
    Map<String, Double> perDecision = new TreeMap<>();
    after.calls().forEach((command, calls) -> {
      long delta = calls - before.calls().getOrDefault(command, 0L);
      if (delta > 0 && !command.equals("info")) {
        perDecision.put(command, Math.round(1000.0 * delta / total) / 1000.0);
      }
    });
    return new Run(total / ((to - from) / 1e9), percentile(all, 0.50) / 1e6, percentile(all, 0.99) / 1e6,
        (double) sent / total, perDecision, (double) (after.scriptMicros() - before.scriptMicros()) / total,
        (after.userSeconds() + after.sysSeconds() - before.userSeconds() - before.sysSeconds()) * 1e6 / total,
        (threadsAfter.process - threadsBefore.process) / 1e3 / total,
        threadsAfter.since(threadsBefore, total, callerNanos.sum(), callerBytes.sum()), after.since(before, total));
  }

  /** This process's CPU time, all threads, in nanoseconds. */
  static long jvmCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** Where a run is; callers read it before each call. */
  private static final class Phase {
    static final int WARMUP = 0;
    static final int MEASURED = 1;
    static final int STOP = 2;
    volatile int value = WARMUP;
  }

  private static long percentile(long[] sorted, double p) {
    return sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static Run medianRun(List<Run> runs) {
    return new Run(median(runs.stream().map(Run::perSecond).toList()), median(runs.stream().map(Run::p50Millis).toList()),
        median(runs.stream().map(Run::p99Millis).toList()), median(runs.stream().map(Run::clientCommands).toList()),
        medianCommands(runs), median(runs.stream().map(Run::scriptMicros).toList()),
        median(runs.stream().map(Run::cpuMicros).toList()), median(runs.stream().map(Run::jvmMicros).toList()),
        new ThreadShare(median(runs.stream().map(r -> r.threads().callerMicros()).toList()),
            median(runs.stream().map(r -> r.threads().eventLoopMicros()).toList()),
            median(runs.stream().map(r -> r.threads().restMicros()).toList()),
            median(runs.stream().map(r -> r.threads().bytes()).toList())),
        new ServerShare(median(runs.stream().map(r -> r.server().userMicros()).toList()),
            median(runs.stream().map(r -> r.server().sysMicros()).toList()),
            median(runs.stream().map(r -> r.server().reads()).toList()),
            median(runs.stream().map(r -> r.server().sleeps()).toList()),
            median(runs.stream().map(r -> r.server().preemptions()).toList()),
            median(runs.stream().map(r -> r.server().bytesIn()).toList()),
            median(runs.stream().map(r -> r.server().bytesOut()).toList())));
  }

  private static Map<String, Double> medianCommands(List<Run> runs) {
    Map<String, List<Double>> byCommand = new TreeMap<>();
    runs.forEach(run -> run.commandsPerDecision().forEach((c, v) -> byCommand.computeIfAbsent(c, k -> new ArrayList<>()).add(v)));
    Map<String, Double> medians = new TreeMap<>();
    byCommand.forEach((c, values) -> {
      while (values.size() < runs.size()) {
        values.add(0.0);
      }
      medians.put(c, median(values));
    });
    return medians;
  }

  static String table(Map<String, List<Run>> runs, Map<String, List<Double>> baselines, int rounds, Duration warmup,
      Duration measure, String version) {
    StringBuilder out = new StringBuilder();
    out.append(format("Medians of %d rounds (contenders and scenarios interleaved; %d s warm-up, %d s measured per run), "
        + "redis-server %s on this machine. Decisions per second over all callers; latency per call; Redis commands "
        + "sent by the client per decision (counted by Lettuce), and every command Redis ran per decision (INFO "
        + "commandstats deltas: the client's and the scripts' own calls).%n%n", rounds, warmup.toSeconds(),
        measure.toSeconds(), version));
    out.append("| scenario | callers | contender | decisions/s | p50 ms | p99 ms | Redis script µs/decision | "
        + "redis-server CPU µs/decision | of which user / sys µs | redis-server reads / sleeps / preemptions "
        + "per decision | bytes in / out per decision | JVM CPU µs/decision | of which callers / event loops / rest µs | "
        + "bytes allocated/decision | client cmd/decision | all commands per decision |\n");
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    Map<String, Double> medianRate = new LinkedHashMap<>();
    Map<String, Run> medians = new LinkedHashMap<>();
    runs.forEach((key, list) -> {
      String[] parts = key.split(" \\| ");
      Run median = medianRun(list);
      medianRate.put(key, median.perSecond());
      medians.put(key, median);
      ServerShare server = median.server();
      out.append(format("| %s | %s | %s | %,.0f | %.3f | %.3f | %.2f | %.2f | %.2f / %.2f | %.3f / %.3f / %.3f | %.0f / %.0f "
          + "| %.2f | %.2f / %.2f / %.2f | %,.0f | %.3f | %s |%n",
          parts[0], parts[1], parts[2], median.perSecond(), median.p50Millis(), median.p99Millis(), median.scriptMicros(),
          median.cpuMicros(), server.userMicros(), server.sysMicros(), server.reads(), server.sleeps(),
          server.preemptions(), server.bytesIn(), server.bytesOut(), median.jvmMicros(), median.threads().callerMicros(), median.threads().eventLoopMicros(),
          median.threads().restMicros(), median.threads().bytes(), median.clientCommands(),
          median.commandsPerDecision().toString().replace("{", "").replace("}", "")));
    });
    out.append("\nRatios of rate-limit's decisions per second:\n\n");
    out.append("| scenario | callers | ÷ bucket4j | ÷ bucket4j batching | ÷ one script per decision | "
        + "÷ Lettuce bare EVALSHA | ÷ redis-benchmark bare EVALSHA | ÷ minimal Lua token bucket |\n");
    out.append("|---|---|---|---|---|---|---|---|\n");
    double evalsha = baselines.entrySet().stream().filter(e -> e.getKey().startsWith("EVALSHA return 1"))
        .mapToDouble(e -> median(e.getValue())).findFirst().orElse(Double.NaN);
    for (String scenario : SCENARIOS) {
      for (int callers : CALLERS) {
        double ours = medianRate.getOrDefault(key(scenario, callers, "rate-limit"), Double.NaN);
        out.append(format("| %s | %d | %.2f× | %.2f× | %.2f× | %.2f× | %.0f%% | %.2f× |%n", scenario, callers,
            ours / medianRate.getOrDefault(key(scenario, callers, "bucket4j"), Double.NaN),
            ours / medianRate.getOrDefault(key(scenario, callers, "bucket4j-batching"), Double.NaN),
            ours / medianRate.getOrDefault(key(scenario, callers, "rate-limit-uncoalesced"), Double.NaN),
            ours / medianRate.getOrDefault(key(scenario, callers, "lettuce-evalsha"), Double.NaN),
            100 * ours / evalsha,
            ours / medianRate.getOrDefault(key(scenario, callers, "lua-token-bucket"), Double.NaN)));
      }
    }
    // the report's target reads on these: the same script costs Redis more per decision when a
    // socket read brings in fewer calls, so the reads go beside each ratio
    out.append("\nredis-server CPU per decision ÷ lua-token-bucket's (median runs), with redis-server's socket reads "
        + "per decision:\n\n| scenario | callers | lua-token-bucket reads | rate-limit | rate-limit-uncoalesced | "
        + "rate-limit-script |\n|---|---|---|---|---|---|\n");
    for (String scenario : SCENARIOS) {
      for (int callers : CALLERS) {
        Run minimal = medians.get(key(scenario, callers, "lua-token-bucket"));
        if (minimal == null) {
          continue;
        }
        out.append(format("| %s | %d | %.3f |", scenario, callers, minimal.server().reads()));
        for (String contender : List.of("rate-limit", "rate-limit-uncoalesced", "rate-limit-script")) {
          Run run = medians.get(key(scenario, callers, contender));
          out.append(run == null ? " - |" : format(" %.2f× (%.3f) |", run.cpuMicros() / minimal.cpuMicros(),
              run.server().reads()));
        }
        out.append('\n');
      }
    }
    out.append("\nLeases (rate-limit-lease: two nodes, lease=" + RedisContender.LEASE + "), decisions per second:\n\n");
    out.append("| scenario | callers | ÷ bucket4j batching | ÷ rate-limit without leases |\n|---|---|---|---|\n");
    for (String scenario : SCENARIOS) {
      for (int callers : CALLERS) {
        double leased = medianRate.getOrDefault(key(scenario, callers, "rate-limit-lease"), Double.NaN);
        out.append(format("| %s | %d | %.2f× | %.2f× |%n", scenario, callers,
            leased / medianRate.getOrDefault(key(scenario, callers, "bucket4j-batching"), Double.NaN),
            leased / medianRate.getOrDefault(key(scenario, callers, "rate-limit"), Double.NaN)));
      }
    }
    out.append("\nThe bucket4j bridge (rate-limit-bucket4j on bucket4j-lettuce) ÷ bucket4j-lettuce called directly, "
        + "decisions per second:\n\n| scenario | callers | ÷ bucket4j |\n|---|---|---|\n");
    for (String scenario : SCENARIOS) {
      for (int callers : CALLERS) {
        out.append(format("| %s | %d | %.2f× |%n", scenario, callers,
            medianRate.getOrDefault(key(scenario, callers, "rate-limit-bucket4j"), Double.NaN)
                / medianRate.getOrDefault(key(scenario, callers, "bucket4j"), Double.NaN)));
      }
    }
    out.append("\nredis-benchmark on the same server (medians, requests per second):\n\n");
    baselines.forEach((name, values) -> out.append(format("- %s: %,.0f%n", name, median(values))));
    out.append("\nRaw decisions per second per round:\n\n");
    runs.forEach((key, list) -> out.append("- ").append(key).append(": ")
        .append(list.stream().map(r -> format("%.0f", r.perSecond())).toList()).append('\n'));
    out.append("\nRaw Redis script µs / redis-server CPU µs per decision per round:\n\n");
    runs.forEach((key, list) -> out.append("- ").append(key).append(": ")
        .append(list.stream().map(r -> format("%.2f/%.2f", r.scriptMicros(), r.cpuMicros())).toList()).append('\n'));
    out.append("\nRaw redis-server user + sys µs, reads, sleeps per decision per round:\n\n");
    runs.forEach((key, list) -> out.append("- ").append(key).append(": ")
        .append(list.stream().map(r -> format("%.2f+%.2f, %.3f, %.3f", r.server().userMicros(), r.server().sysMicros(),
            r.server().reads(), r.server().sleeps())).toList()).append('\n'));
    out.append("\nRaw JVM CPU µs per decision (callers + event loops + rest) and bytes allocated per decision per round:\n\n");
    runs.forEach((key, list) -> out.append("- ").append(key).append(": ")
        .append(list.stream().map(r -> format("%.2f+%.2f+%.2f, %.0f B", r.threads().callerMicros(),
            r.threads().eventLoopMicros(), r.threads().restMicros(), r.threads().bytes())).toList()).append('\n'));
    return out.toString();
  }

  private static String format(String pattern, Object... values) {
    return String.format(Locale.ROOT, pattern, values);
  }

  /** A {@code redis-server} of this run, and {@code redis-benchmark} against it. */
  static final class RedisProcess implements AutoCloseable {
    private final int port;
    private final Process process;
    private final Path directory;

    private RedisProcess(int port, Process process, Path directory) {
      this.port = port;
      this.process = process;
      this.directory = directory;
    }

    static RedisProcess start() throws IOException, InterruptedException {
      int port;
      try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
        port = socket.getLocalPort();
      }
      Path directory = Files.createTempDirectory("redis-bench-");
      Process process = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
          "--save", "", "--appendonly", "no", "--dir", directory.toString(), "--loglevel", "warning")
          .redirectErrorStream(true).redirectOutput(directory.resolve("redis.log").toFile()).start();
      RedisProcess redis = new RedisProcess(port, process, directory);
      for (int i = 0; i < 200; i++) {
        if (redis.cli("PING").strip().equals("PONG")) {
          return redis;
        }
        Thread.sleep(50);
      }
      throw new IllegalStateException("redis-server did not start: " + Files.readString(directory.resolve("redis.log")));
    }

    long pid() {
      return process.pid();
    }

    String uri() {
      return "redis://127.0.0.1:" + port;
    }

    String version() throws IOException, InterruptedException {
      return exec("redis-server", "--version").replaceAll(".*v=(\\S+).*", "$1").strip();
    }

    String cli(String... words) throws IOException, InterruptedException {
      List<String> command = new ArrayList<>(List.of("redis-cli", "-p", Integer.toString(port)));
      command.addAll(List.of(words));
      return exec(command.toArray(String[]::new));
    }

    /**
     * redis-benchmark with 50 clients: a bare EVALSHA of {@code return 1}, the scale the report's
     * target is stated in, and GET of a small value, so the numbers mean the same on any server.
     */
    Map<String, Double> baselines() throws IOException, InterruptedException {
      String sha = cli("SCRIPT", "LOAD", "return 1").strip();
      cli("SET", "bench", "x");
      Map<String, Double> rates = new LinkedHashMap<>();
      rates.put("EVALSHA return 1 (50 clients)", benchmark("evalsha", sha, "0"));
      rates.put("GET (50 clients)", benchmark("get", "bench"));
      return rates;
    }

    private double benchmark(String... command) throws IOException, InterruptedException {
      List<String> line = new ArrayList<>(List.of("redis-benchmark", "-p", Integer.toString(port), "-c", "50", "-n",
          "200000", "-q"));
      line.addAll(List.of(command));
      String output = exec(line.toArray(String[]::new));
      // "evalsha ...: 35211.27 requests per second, p50=..." (after progress lines ending in \r)
      String last = output.substring(output.lastIndexOf('\r') + 1);
      String rate = last.replaceAll("(?s).*?:\\s*([0-9.]+) requests per second.*", "$1");
      return Double.parseDouble(rate);
    }

    private static String exec(String... command) throws IOException, InterruptedException {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      p.waitFor();
      return output;
    }

    @Override
    public void close() {
      process.destroyForcibly();
    }
  }
}

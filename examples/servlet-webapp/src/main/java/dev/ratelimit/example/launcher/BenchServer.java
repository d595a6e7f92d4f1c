package dev.ratelimit.example.launcher;

import dev.ratelimit.servlet.RateLimitFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;

/**
 * The A/B target of {@code examples/servlet-webapp/bench}: one Jetty, one trivial servlet in two
 * contexts, {@code /with} behind RateLimitFilter (configured by init-params, as from web.xml, on
 * the in-memory store; every request charges the client address's bucket, which never runs out)
 * and {@code /without} behind nothing. Same JVM, same connector, same servlet: the difference is
 * the filter. {@code java -cp servlet-webapp-launcher.jar dev.ratelimit.example.launcher.BenchServer [PORT]}
 *
 * <p>{@code BenchServer --local [ROUNDS] [REQUESTS]} measures in process instead, without
 * sockets: one client thread sends requests over one keep-alive connection of a Jetty
 * {@link LocalConnector}, the two contexts taking turns every few thousand requests, and reports
 * the process CPU time per request of each, the sending thread's (on which Jetty handles each
 * request) and the heap allocated (other load on the machine disturbs CPU time far less than
 * throughput, and allocation not at all).
 */
public final class BenchServer {
  /** Requests per turn of a context within a round (-Dbench.chunk). */
  private static final int CHUNK = Integer.getInteger("bench.chunk", 2000);

  private BenchServer() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("--local")) {
      local(args.length > 1 ? Integer.parseInt(args[1]) : 10, args.length > 2 ? Integer.parseInt(args[2]) : 200_000);
      return;
    }
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(args.length > 0 ? Integer.parseInt(args[0]) : 0);
    server.addConnector(connector);
    ContextHandlerCollection contexts = new ContextHandlerCollection();
    contexts.addHandler(context("/with", true));
    contexts.addHandler(context("/without", false));
    server.setHandler(contexts);
    server.start();
    System.out.println("bench server listening on port " + connector.getLocalPort());
    server.join();
  }

  private static void local(int rounds, int requests) throws Exception {
    Server server = new Server();
    LocalConnector connector = new LocalConnector(server);
    server.addConnector(connector);
    ContextHandlerCollection contexts = new ContextHandlerCollection();
    contexts.addHandler(context("/with", true));
    contexts.addHandler(context("/without", false));
    server.setHandler(contexts);
    server.start();
    try {
      LocalConnector.LocalEndPoint endPoint = connector.connect();
      OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
      for (int i = 0; i < 3; i++) { // warm up: let the JIT compile both paths
        send(endPoint, os, "/with/", requests);
        send(endPoint, os, "/without/", requests);
      }
      System.out.printf("in process (LocalConnector), %d rounds of %d requests per context, taking turns every %d%n",
          rounds, requests, CHUNK);
      System.out.println("round  with(us CPU/req)  without(us CPU/req)  ratio  with(B/req)  without(B/req)  difference(B/req)"
          + "  request thread with-without(us CPU/req)");
      double[] ratios = new double[rounds];
      double[] bytes = new double[rounds];
      double[] threadMicros = new double[rounds];
      for (int round = 0; round < rounds; round++) {
        // the two contexts take turns every CHUNK requests (some milliseconds), so that load from
        // elsewhere on the machine, which changes over seconds, falls on both alike
        Cost with = Cost.NONE;
        Cost without = Cost.NONE;
        int chunks = Math.max(1, requests / CHUNK);
        for (int chunk = 0; chunk < chunks; chunk++) {
          if ((round + chunk) % 2 == 0) {
            with = with.plus(send(endPoint, os, "/with/", CHUNK), chunks);
            without = without.plus(send(endPoint, os, "/without/", CHUNK), chunks);
          } else {
            without = without.plus(send(endPoint, os, "/without/", CHUNK), chunks);
            with = with.plus(send(endPoint, os, "/with/", CHUNK), chunks);
          }
        }
        ratios[round] = with.cpuMicros() / without.cpuMicros();
        bytes[round] = with.bytes() - without.bytes();
        threadMicros[round] = with.threadMicros() - without.threadMicros();
        System.out.printf("%5d  %16.3f  %19.3f  %5.3f  %11.0f  %14.0f  %17.0f  %39.3f%n", round + 1, with.cpuMicros(),
            without.cpuMicros(), ratios[round], with.bytes(), without.bytes(), bytes[round], threadMicros[round]);
      }
      System.out.printf("CPU per request with/without: median %.3f (rounds %.3f to %.3f): %.1f%% more CPU per request%n",
          median(ratios), min(ratios), max(ratios), (median(ratios) - 1) * 100);
      System.out.printf("heap allocated per request, with - without: median %.0f B (rounds %.0f to %.0f)%n",
          median(bytes), min(bytes), max(bytes));
      System.out.printf("request thread's CPU per request, with - without: median %.3f us (rounds %.3f to %.3f)%n",
          median(threadMicros), min(threadMicros), max(threadMicros));
    } finally {
      server.stop();
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private static double min(double[] values) {
    return Arrays.stream(values).min().orElseThrow();
  }

  private static double max(double[] values) {
    return Arrays.stream(values).max().orElseThrow();
  }

  /**
   * What a round of requests cost per request: process CPU time in µs; the CPU time of the one
   * thread that sends the requests, in µs (a LocalConnector runs Jetty's handling of each request
   * on it, so this is the request's own work without the GC's and the JIT compiler's threads); and
   * heap allocated by all threads in bytes.
   */
  record Cost(double cpuMicros, double threadMicros, double bytes) {
    static final Cost NONE = new Cost(0, 0, 0);

    /** This and one of {@code parts} equal parts of a round: the mean per request. */
    Cost plus(Cost part, int parts) {
      return new Cost(cpuMicros + part.cpuMicros / parts, threadMicros + part.threadMicros / parts,
          bytes + part.bytes / parts);
    }
  }

  /**
   * Sends requests one after another on a keep-alive connection; the process CPU time and the
   * heap allocated per request. The client only looks for the end of each response (the body
   * "ok\n"): parsing the responses would put a client's work on the server's bill. Allocation
   * is robust to other load on the machine, unlike time: the same work allocates the same bytes.
   */
  private static Cost send(LocalConnector.LocalEndPoint endPoint, OperatingSystemMXBean os, String path,
      int requests) throws Exception {
    String request = "GET " + path + " HTTP/1.1\r\nHost: bench\r\n\r\n";
    java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long allocatedBefore = allocated();
    long threadBefore = threads.getCurrentThreadCpuTime();
    long before = os.getProcessCpuTime();
    for (int i = 0; i < requests; i++) {
      endPoint.addInput(request);
      ByteBuffer output = endPoint.waitForOutput(10, TimeUnit.SECONDS);
      if (output == null || output.remaining() < 12 || output.get(output.position() + 9) != '2') {
        throw new IllegalStateException("no 2xx answer for " + path);
      }
      while (!endsWithBody(output)) {
        output = endPoint.waitForOutput(10, TimeUnit.SECONDS);
        if (output == null) {
          throw new IllegalStateException("no complete answer for " + path);
        }
      }
    }
    long cpu = os.getProcessCpuTime() - before;
    long thread = threads.getCurrentThreadCpuTime() - threadBefore;
    return new Cost(cpu / 1000.0 / requests, thread / 1000.0 / requests,
        (double) (allocated() - allocatedBefore) / requests);
  }

  /** Bytes allocated so far by the live threads (Jetty's pool threads live through the bench). */
  private static long allocated() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long total = 0;
    for (long bytes : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
      total += Math.max(0, bytes);
    }
    return total;
  }

  private static boolean endsWithBody(ByteBuffer output) {
    int end = output.limit();
    return end - output.position() >= 3 && output.get(end - 3) == 'o' && output.get(end - 2) == 'k'
        && output.get(end - 1) == '\n';
  }

  private static ServletContextHandler context(String path, boolean limited) {
    ServletContextHandler context = new ServletContextHandler(path);
    context.addServlet(new ServletHolder(new Ok()), "/*");
    if (limited) {
      FilterHolder filter = new FilterHolder(RateLimitFilter.class);
      // refills far faster than any client here can spend, so never denies; header values of a real size
      filter.setInitParameter("limits", "bench = token-bucket rate=1000000 period=1s capacity=1000");
      filter.setInitParameter("rules", "/* bench key=ip");
      // -Dbench.headers=none measures the decision alone, without the headers it writes
      filter.setInitParameter("headers", System.getProperty("bench.headers", "legacy,ietf"));
      context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
    }
    return context;
  }

  /** As trivial as a servlet gets: a fixed three-byte body. */
  static final class Ok extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final byte[] BODY = "ok\n".getBytes(StandardCharsets.US_ASCII);

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
      response.setContentType("text/plain");
      response.setContentLength(BODY.length);
      response.getOutputStream().write(BODY);
    }
  }
}

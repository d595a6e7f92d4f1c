package dev.ratelimit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built {@code ratelimit.jar} on hostile traces, each run in a JVM of its own with a small
 * heap (docs/design.md §8): the trace is made as it is written to the simulator's standard
 * input, never held in this test's heap. Every run ends with exit 0, an error line for each line
 * that can't be read, and the summary.
 */
class HostileTraceIT {
  private static final Path JAR = Path.of("target", "ratelimit.jar");
  private static final String LIMIT = "api=token-bucket rate=5 period=1s";
  private static final byte[] GOOD = "{\"t\": 1767225600000, \"key\": \"u1\"}\n".getBytes(StandardCharsets.UTF_8);

  @TempDir
  Path dir;

  /**
   * What a run printed: its exit code, how many output lines, the first few (each cut to 1000
   * characters), and its summary.
   */
  record Run(int exitCode, long count, List<String> lines, String stderr) {}

  /** Writes the trace to the simulator's standard input. */
  interface Trace {
    void writeTo(OutputStream in) throws IOException;
  }

  private Run simulate(String maxHeap, Trace trace) throws Exception {
    assertThat(JAR).as("built by the package phase").exists();
    Path stderr = dir.resolve("stderr.txt");
    Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + maxHeap, "-jar", JAR.toString(), "simulate", "--limit", LIMIT)
        .redirectError(stderr.toFile())
        .start();
    List<String> first = new ArrayList<>();
    CompletableFuture<Long> output = CompletableFuture.supplyAsync(() -> {
      long count = 0;
      try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = out.readLine(); line != null; line = out.readLine(), count++) {
          if (first.size() < 5) {
            first.add(line.length() > 1000 ? line.substring(0, 1000) : line);
          }
        }
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      return count;
    });
    try (OutputStream in = new BufferedOutputStream(process.getOutputStream(), 1 << 16)) {
      trace.writeTo(in);
    }
    assertThat(process.waitFor(10, TimeUnit.MINUTES)).as("the run ended").isTrue();
    long count = output.get(1, TimeUnit.MINUTES);
    return new Run(process.exitValue(), count, first, Files.readString(stderr));
  }

  /** {@code length} bytes of {@code x}, written a chunk at a time. */
  private static void xs(OutputStream in, long length) throws IOException {
    byte[] chunk = new byte[1 << 16];
    Arrays.fill(chunk, (byte) 'x');
    for (long left = length; left > 0; left -= chunk.length) {
      in.write(chunk, 0, (int) Math.min(chunk.length, left));
    }
  }

  @Test
  void aLineOf100Megabytes_isOneErrorLine_andTheRunGoesOn() throws Exception {
    String start = "{\"t\": 1767225600000, \"key\": \"";
    Run run = simulate("64m", in -> {
      in.write(GOOD);
      in.write(start.getBytes(StandardCharsets.UTF_8));
      xs(in, 100L << 20);
      in.write("\"}\n".getBytes(StandardCharsets.UTF_8));
      in.write(GOOD);
    });

    assertThat(run.exitCode()).as(run.stderr()).isZero();
    assertThat(run.count()).isEqualTo(3);
    assertThat(run.lines().get(0)).contains("\"allowed\": true, \"remaining\": 4");
    assertThat(run.lines().get(1)).startsWith("{\"error\": true, \"message\": \"line too long: "
        + (start.length() + (100L << 20) + 2) + " characters, over the bound of 1048576; skipped");
    assertThat(run.lines().get(2)).contains("\"allowed\": true, \"remaining\": 3");
    assertThat(run.stderr()).contains("ratelimit simulate: 3 lines", "2 admitted, 0 denied",
        "error lines: 1 (first: line 2: line too long: ");
  }

  @Test
  void threeHundredMegabytesWithoutANewline_areOneErrorLine() throws Exception {
    Run run = simulate("64m", in -> xs(in, 300L << 20));

    assertThat(run.exitCode()).as(run.stderr()).isZero();
    assertThat(run.count()).isEqualTo(1);
    assertThat(run.lines().get(0)).startsWith("{\"error\": true, \"message\": \"line too long: " + (300L << 20)
        + " characters");
    assertThat(run.stderr()).contains("ratelimit simulate: 1 line", "error lines: 1 (first: line 1: line too long");
  }

  @Test
  void aLineNested200000Deep_isOneErrorLine_andTheRunGoesOn() throws Exception {
    Run run = simulate("64m", in -> {
      in.write(("{\"t\": 1767225600000, \"key\": \"u1\", \"v\": " + "[".repeat(200_000) + "]".repeat(200_000) + "}\n")
          .getBytes(StandardCharsets.UTF_8));
      in.write(GOOD);
    });

    assertThat(run.exitCode()).as(run.stderr()).isZero();
    assertThat(run.count()).isEqualTo(2);
    assertThat(run.lines().get(0)).contains("a value nested deeper than 1000 levels");
    assertThat(run.lines().get(1)).contains("\"allowed\": true, \"remaining\": 4");
    assertThat(run.stderr()).contains("1 admitted, 0 denied", "error lines: 1 (first: line 1: bad JSON at column ");
  }

  @Test
  void twoMillionDistinctKeys_runInASmallHeap_andTheSummarySaysItIsApproximate() throws Exception {
    // 288 MB holds the in-memory store's two million keys (every key is kept: time may go back);
    // counting each key in the summary as well does not fit
    Run run = simulate("288m", in -> {
      StringBuilder lines = new StringBuilder();
      for (int i = 0; i < 2_000_000; i++) {
        lines.append("{\"t\": ").append(1_767_225_600_000L + i / 1000).append(", \"key\": \"client-").append(i)
            .append("\"}\n");
        if (i % 100 == 0) {
          lines.append("{\"t\": ").append(1_767_225_600_000L + i / 1000).append(", \"key\": \"scraper\"}\n");
        }
        if (lines.length() > 1 << 16) {
          in.write(lines.toString().getBytes(StandardCharsets.UTF_8));
          lines.setLength(0);
        }
      }
      in.write(lines.toString().getBytes(StandardCharsets.UTF_8));
    });

    assertThat(run.exitCode()).as(run.stderr()).isZero();
    assertThat(run.count()).isEqualTo(2_020_000);
    assertThat(run.stderr()).contains("ratelimit simulate: 2020000 lines")
        .containsPattern("most denied: scraper \\d+\n")
        .containsPattern("more than 10000 keys: counts per key are approximate, each at most \\d+ short\n")
        .contains("error lines: 0");
  }
}

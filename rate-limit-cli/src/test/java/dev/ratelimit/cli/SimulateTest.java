package dev.ratelimit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.LongKeys;
import dev.ratelimit.trace.JsonLine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulateTest {
  private static final String API = "api=token-bucket rate=2 period=1s";

  @TempDir
  Path dir;

  @Test
  void simulate_writesOneLinePerInputLine() {
    CliRun run = CliRun.run("""
        {"t": 0, "key": "u1"}
        {"t": 0, "key": "u1"}
        {"t": 0, "key": "u1"}
        {"t": 500, "key": "u1", "op": "check"}
        """, "simulate", "--limit", API);

    assertThat(run.exitCode()).isZero();
    assertThat(run.lines()).containsExactly(
        "{\"t\": 0, \"key\": \"u1\", \"allowed\": true, \"remaining\": 1, \"retryAfterMs\": 0, \"resetAfterMs\": 500}",
        "{\"t\": 0, \"key\": \"u1\", \"allowed\": true, \"remaining\": 0, \"retryAfterMs\": 0, \"resetAfterMs\": 1000}",
        "{\"t\": 0, \"key\": \"u1\", \"allowed\": false, \"remaining\": 0, \"retryAfterMs\": 500, \"resetAfterMs\": 1000}",
        "{\"t\": 500, \"key\": \"u1\", \"op\": \"check\", \"allowed\": true, \"remaining\": 1, \"retryAfterMs\": 0,"
            + " \"resetAfterMs\": 500}");
  }

  @Test
  void simulate_skipsBlankLines() {
    CliRun run = CliRun.run("\n{\"t\": 0}\n   \n{\"t\": 1}\n\n", "simulate", "--limit", API);

    assertThat(run.lines()).hasSize(2).allSatisfy(line -> assertThat(line).contains("\"allowed\": true"));
  }

  @Test
  void simulate_brokenJsonMidFileBecomesAnErrorLineAndTheRunGoesOn() {
    CliRun run = CliRun.run("""
        {"t": 0, "key": "u1"}
        {"t": 0, "key": "u1"
        {"t": 0, "key": "u1"}
        """, "simulate", "--limit", API);

    assertThat(run.exitCode()).isZero();
    assertThat(run.lines()).hasSize(3);
    assertThat(run.lines().get(1))
        .startsWith("{\"error\": true, \"message\": \"bad JSON")
        .endsWith("\"input\": \"{\\\"t\\\": 0, \\\"key\\\": \\\"u1\\\"\"}");
    assertThat(run.lines().get(2)).contains("\"allowed\": true", "\"remaining\": 0");
    assertThat(run.stderr()).contains("error lines: 1 (first: line 2: bad JSON");
  }

  @Test
  void simulate_lineThatIsNeitherJsonNorAccessLogBecomesAnErrorLine() {
    CliRun run = CliRun.run("hello <world>\n{\"t\": 0}\n", "simulate", "--limit", API);

    assertThat(run.exitCode()).isZero();
    assertThat(run.lines()).containsExactly(
        "{\"error\": true, \"message\": \"neither a JSON object nor an access log line (Common or Combined Log"
            + " Format)\", \"input\": \"hello <world>\"}",
        "{\"t\": 0, \"allowed\": true, \"remaining\": 1, \"retryAfterMs\": 0, \"resetAfterMs\": 500}");
  }

  @Test
  void simulate_readsCommonLogFormat() {
    CliRun run = CliRun.run("""
        127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326
        127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326
        10.0.0.2 - - [10/Oct/2000:13:55:36 -0700] "POST /login HTTP/1.1" 401 -
        127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 429 -
        127.0.0.1 - frank [10/Oct/2000:13:55:37 -0700] "GET /again HTTP/1.0" 200 12
        """, "simulate", "--limit", API);

    assertThat(run.exitCode()).isZero();
    // 13:55:36 at -07:00 is 20:55:36 UTC
    assertThat(run.lines()).containsExactly(
        "{\"t\": 971211336000, \"key\": \"127.0.0.1\", \"method\": \"GET\", \"path\": \"/apache_pb.gif\","
            + " \"status\": 200, \"allowed\": true, \"remaining\": 1, \"retryAfterMs\": 0, \"resetAfterMs\": 500}",
        "{\"t\": 971211336000, \"key\": \"127.0.0.1\", \"method\": \"GET\", \"path\": \"/apache_pb.gif\","
            + " \"status\": 200, \"allowed\": true, \"remaining\": 0, \"retryAfterMs\": 0, \"resetAfterMs\": 1000}",
        "{\"t\": 971211336000, \"key\": \"10.0.0.2\", \"method\": \"POST\", \"path\": \"/login\","
            + " \"status\": 401, \"allowed\": true, \"remaining\": 1, \"retryAfterMs\": 0, \"resetAfterMs\": 500}",
        "{\"t\": 971211336000, \"key\": \"127.0.0.1\", \"method\": \"GET\", \"path\": \"/apache_pb.gif\","
            + " \"status\": 429, \"allowed\": false, \"remaining\": 0, \"retryAfterMs\": 500, \"resetAfterMs\": 1000}",
        "{\"t\": 971211337000, \"key\": \"127.0.0.1\", \"method\": \"GET\", \"path\": \"/again\","
            + " \"status\": 200, \"allowed\": true, \"remaining\": 1, \"retryAfterMs\": 0, \"resetAfterMs\": 500}");
  }

  @Test
  void simulate_readsCombinedLogFormat() {
    CliRun run = CliRun.run("2001:db8::1 - - [02/Mar/2026:09:00:00 +0000] \"GET /api/items?page=2 HTTP/2.0\" 200 512"
        + " \"https://example.com/\" \"Mozilla/5.0 (X11; Linux x86_64) \\\"quoted\\\"\"\n", "simulate", "--limit", API);

    assertThat(run.exitCode()).isZero();
    assertThat(run.lines()).containsExactly("{\"t\": 1772442000000, \"key\": \"2001:db8::1\", \"method\": \"GET\","
        + " \"path\": \"/api/items?page=2\", \"status\": 200, \"allowed\": true, \"remaining\": 1,"
        + " \"retryAfterMs\": 0, \"resetAfterMs\": 500}");
  }

  @Test
  void simulate_malformedAccessLogLineBecomesAnErrorLine() {
    String badTime = "127.0.0.1 - - [32/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0\" 200 1";
    String noStatus = "127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0\"";

    CliRun run = CliRun.run(badTime + "\n" + noStatus + "\n", "simulate", "--limit", API);

    assertThat(run.exitCode()).isZero();
    assertThat(run.lines()).containsExactly(
        "{\"error\": true, \"message\": \"bad time [32/Oct/2000:13:55:36 -0700] in an access log line; expected"
            + " [dd/MMM/yyyy:HH:mm:ss +hhmm]\", \"input\": \"127.0.0.1 - - [32/Oct/2000:13:55:36 -0700] \\\"GET /"
            + " HTTP/1.0\\\" 200 1\"}",
        "{\"error\": true, \"message\": \"neither a JSON object nor an access log line (Common or Combined Log"
            + " Format)\", \"input\": \"127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \\\"GET / HTTP/1.0\\\"\"}");
    assertThat(run.stderr()).contains("error lines: 2");
  }

  @Test
  void simulate_accessLogLineWithSeveralLimitsBecomesAnErrorLine() {
    CliRun run = CliRun.run("""
        127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 1
        {"t": 0, "limit": "login", "key": "u1"}
        """, "simulate", "--limit", API, "--limit", "login=fixed-window rate=5 period=15m");

    assertThat(run.exitCode()).isZero();
    assertThat(run.lines()).hasSize(2);
    assertThat(run.lines().get(0)).isEqualTo("{\"t\": 971211336000, \"key\": \"127.0.0.1\", \"method\": \"GET\","
        + " \"path\": \"/\", \"status\": 200, \"error\": true, \"message\": \"no \\\"limit\\\" given and 2 limits"
        + " are declared: api, login\"}");
    assertThat(run.lines().get(1)).contains("\"allowed\": true", "\"remaining\": 4");
  }

  @Test
  void simulate_readsInputFileAndWritesOutputFile() throws IOException {
    Path input = Files.writeString(dir.resolve("in.jsonl"), "{\"t\": 0, \"key\": \"u1\"}\n");
    Path output = dir.resolve("out.jsonl");

    CliRun run = CliRun.run("", "simulate", "--limit=" + API, "--input", input.toString(), "--output=" + output);

    assertThat(run.exitCode()).isZero();
    assertThat(run.stdout()).isEmpty();
    assertThat(Files.readString(output, StandardCharsets.UTF_8)).isEqualTo(
        "{\"t\": 0, \"key\": \"u1\", \"allowed\": true, \"remaining\": 1, \"retryAfterMs\": 0, \"resetAfterMs\": 500}\n");
  }

  @Test
  void simulate_printsSummaryOnStandardError() {
    CliRun run = CliRun.run("""
        {"t": 0, "limit": "api", "key": "a"}
        {"t": 0, "limit": "api", "key": "a"}
        {"t": 0, "limit": "api", "key": "a"}
        {"t": 0, "limit": "api", "key": "a"}
        {"t": 0, "limit": "api", "key": "b"}
        {"t": 0, "limit": "api", "key": "b"}
        {"t": 0, "limit": "api", "key": "b"}
        {"t": 0, "limit": "api", "key": "c"}
        {"t": 0, "limit": "api", "key": "c", "op": "reset"}
        {"t": 0, "limit": "other", "key": "a"}
        {"t": 0, "limit": "api", "key": "c", "count": -1}
        """, "simulate", "--limit", API, "--limit", "idle=10/1m");

    assertThat(run.exitCode()).isZero();
    assertThat(run.stderr()).isEqualTo("""
        ratelimit simulate: 11 lines
          api (token-bucket rate=2 period=1s): 5 admitted, 3 denied, 1 reset
            most denied: a 2, b 1
          idle (token-bucket rate=10 period=1m): no requests
          error lines: 2 (first: line 10: unknown limit 'other'; declared: api, idle)
        """);
  }

  /** Takes and refunds settle units: counted apart, neither admitted nor denied. */
  @Test
  void simulate_summaryCountsSettlementsApart() {
    CliRun run = CliRun.run("""
        {"t": 0, "key": "a", "count": 2}
        {"t": 0, "key": "a", "op": "take", "count": 5}
        {"t": 0, "key": "a"}
        {"t": 0, "key": "a", "op": "refund", "count": 1}
        {"t": 0, "key": "a", "op": "take", "count": -1}
        """, "simulate", "--limit", API);

    assertThat(run.exitCode()).isZero();
    assertThat(run.stdout()).contains("\"op\": \"take\", \"count\": 5, \"allowed\": false, \"remaining\": -2");
    assertThat(run.stderr()).isEqualTo("""
        ratelimit simulate: 5 lines
          api (token-bucket rate=2 period=1s): 1 admitted, 1 denied, 2 settlements
            most denied: a 1
          error lines: 1 (first: line 5: take count must be a finite number, 0 or more, but was -1.0 (limit 'api'))
        """);
  }

  @Test
  void simulate_summaryListsTheFiveMostDeniedKeys() {
    StringBuilder input = new StringBuilder();
    for (String key : new String[] {"f", "e", "d", "c", "b", "a"}) {
      input.append("{\"t\": 0, \"key\": \"").append(key).append("\", \"count\": 2}\n");
      int denials = key.equals("e") ? 3 : 1;
      for (int i = 0; i < denials; i++) {
        input.append("{\"t\": 0, \"key\": \"").append(key).append("\"}\n");
      }
    }

    CliRun run = CliRun.run(input.toString(), "simulate", "--limit", API);

    assertThat(run.stderr()).contains("most denied: e 3, a 1, b 1, c 1, d 1\n");
  }

  @Test
  void simulate_rejectsBadSpec() {
    CliRun run = CliRun.run("", "simulate", "--limit", "api=token-bucket rate=10 period=1m burst=3");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.stdout()).isEmpty();
    assertThat(run.stderr()).startsWith("ratelimit simulate: bad --limit api=token-bucket rate=10 period=1m burst=3: ")
        .contains("'burst'").hasLineCount(1);
  }

  @Test
  void simulate_rejectsInvalidLimitName() {
    CliRun run = CliRun.run("", "simulate", "--limit", "My_Api=10/1m");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.stderr()).startsWith("ratelimit simulate: bad --limit My_Api=10/1m: invalid limit name 'My_Api'")
        .hasLineCount(1);
  }

  @Test
  void simulate_rejectsDuplicateLimitName() {
    CliRun run = CliRun.run("", "simulate", "--limit", "api=10/1m", "--limit", "api=5/1s");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.stderr()).isEqualTo("ratelimit simulate: bad --limit api=5/1s: limit 'api' is defined twice\n");
  }

  @Test
  void simulate_rejectsMissingLimit() {
    CliRun run = CliRun.run("{\"t\": 0}\n", "simulate");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.stdout()).isEmpty();
    assertThat(run.stderr()).startsWith("ratelimit simulate: no --limit given").hasLineCount(1);
  }

  @Test
  void simulate_rejectsLimitWithoutName() {
    CliRun run = CliRun.run("", "simulate", "--limit", "token-bucket rate=10 period=1m");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.stderr()).startsWith("ratelimit simulate: --limit needs NAME=SPEC")
        .contains("but was 'token-bucket rate=10 period=1m'").hasLineCount(1);
  }

  @Test
  void simulate_rejectsUnknownOption() {
    CliRun run = CliRun.run("", "simulate", "--limit", API, "--speed", "fast");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.stderr()).isEqualTo(
        "ratelimit simulate: unknown option '--speed'; see 'ratelimit simulate --help'\n");
  }

  @Test
  void simulate_rejectsOptionWithoutValue() {
    CliRun run = CliRun.run("", "simulate", "--limit", API, "--input");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.stderr()).isEqualTo(
        "ratelimit simulate: --input needs a value (FILE); see 'ratelimit simulate --help'\n");
  }

  @Test
  void simulate_rejectsMissingInputFile() {
    Path missing = dir.resolve("missing.jsonl");

    CliRun run = CliRun.run("", "simulate", "--limit", API, "--input", missing.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.stderr()).isEqualTo("ratelimit simulate: cannot read --input " + missing
        + ": no such file or directory\n");
  }

  @Test
  void simulate_rejectsPlotInMissingDirectory() {
    Path plot = dir.resolve("nowhere").resolve("plot.svg");

    CliRun run = CliRun.run("{\"t\": 0}\n", "simulate", "--limit", API, "--plot", plot.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.stdout()).isEmpty();
    assertThat(run.stderr()).startsWith("ratelimit simulate: cannot write --plot " + plot + ": no such directory")
        .hasLineCount(1);
  }

  @Test
  void simulate_refusesToOverwriteTheInput() throws IOException {
    Path trace = Files.writeString(dir.resolve("trace.jsonl"), "{\"t\": 0}\n");

    CliRun run = CliRun.run("", "simulate", "--limit", API, "--input", trace.toString(), "--output",
        dir.resolve(".").resolve("trace.jsonl").toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.stderr()).endsWith(": it is the --input file\n").hasLineCount(1);
    assertThat(Files.readString(trace)).isEqualTo("{\"t\": 0}\n");
  }

  @Test
  void help_printsUsage() {
    for (String[] args : new String[][] {{"--help"}, {"help"}, {"-h"}}) {
      CliRun run = CliRun.run("", args);

      assertThat(run.exitCode()).isZero();
      assertThat(run.stdout()).startsWith("Usage: ratelimit <command>").contains("simulate");
      assertThat(run.stderr()).isEmpty();
    }
  }

  @Test
  void simulateHelp_printsOptions() {
    for (String[] args : new String[][] {{"simulate", "--help"}, {"help", "simulate"}, {"simulate", "-h"}}) {
      CliRun run = CliRun.run("", args);

      assertThat(run.exitCode()).isZero();
      assertThat(run.stdout()).startsWith("Usage: ratelimit simulate --limit NAME=SPEC")
          .contains("--input FILE", "--output FILE", "--plot FILE.svg", "Common or Combined Log Format");
    }
  }

  @Test
  void hostileLines_areErrorLines_andTheRunGoesOn() {
    String good = "{\"t\": 0, \"key\": \"u1\"}\n";
    String huge = "{\"t\": 0, \"key\": \"" + "x".repeat(2 * TraceLines.MAX_CHARS) + "\"}\n";
    String deep = "{\"t\": 0, \"key\": \"u1\", \"v\": " + "[".repeat(200_000) + "]".repeat(200_000) + "}\n";
    String longRequest = "10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"GET /" + "a\\\"".repeat(300_000) + " HTTP/1.1\" 200 1\n";

    CliRun run = CliRun.run(good + huge + deep + longRequest + "{\"t\": 0, \"key\": \"u1\"}", "simulate", "--limit", API);

    assertThat(run.exitCode()).isZero();
    List<String> lines = run.lines();
    assertThat(lines).hasSize(5);
    assertThat(lines.get(0)).contains("\"allowed\": true, \"remaining\": 1");
    assertThat(lines.get(1)).isEqualTo("{\"error\": true, \"message\": \"line too long: " + (huge.length() - 1)
        + " characters, over the bound of 1048576; skipped (\\\"input\\\" holds its first 256)\", \"input\": "
        + JsonLine.quote(huge.substring(0, 256)) + "}");
    assertThat(lines.get(2)).startsWith("{\"error\": true, \"message\": \"bad JSON at column ")
        .contains(": a value nested deeper than 1000 levels\"");
    assertThat(lines.get(3)).startsWith("{\"t\": 971211336000, \"key\": \"10.0.0.1\", \"method\": \"GET\"")
        .contains("\"allowed\": true");
    assertThat(lines.get(4)).as("the key's state went on").contains("\"allowed\": true, \"remaining\": 0");
    assertThat(run.stderr()).contains("3 admitted, 0 denied").contains("error lines: 2 (first: line 2: line too long: ");
  }

  @Test
  void plot_followsKeysAsTheLimiterBoundsThem() throws IOException {
    String longKey = "k".repeat(300);
    Path plot = dir.resolve("long.svg");
    CliRun run = CliRun.run("{\"t\": 0, \"key\": \"" + longKey + "\"}\n{\"t\": 0, \"key\": \"" + longKey + "\"}\n",
        "simulate", "--limit", API, "--plot", plot.toString());

    assertThat(run.exitCode()).isZero();
    assertThat(Files.readString(plot)).contains(LongKeys.bounded(longKey)).contains("its only key");
  }

  @Test
  void run_rejectsMissingOrUnknownCommand() {
    CliRun none = CliRun.run("");
    CliRun unknown = CliRun.run("", "replay");

    assertThat(none.exitCode()).isEqualTo(2);
    assertThat(none.stderr()).isEqualTo("ratelimit: no command given; try 'ratelimit --help'\n");
    assertThat(unknown.exitCode()).isEqualTo(2);
    assertThat(unknown.stderr()).isEqualTo("ratelimit: unknown command 'replay'; try 'ratelimit --help'\n");
  }
}

package dev.ratelimit.cli;

import dev.ratelimit.ManualClock;
import dev.ratelimit.limiter.RateLimiter;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code ratelimit} command. {@link #run} takes its streams as arguments, so tests run it
 * in-process; {@link Main} only hands it the real ones.
 *
 * <p>Exit codes: 0 when the trace was replayed (error lines included), 1 when reading the input
 * or writing a result failed midway, 2 for a command line that can't be run.
 */
public final class Cli {
  static final int OK = 0;
  static final int FAILED = 1;
  static final int USAGE = 2;

  static final String HELP = """
      Usage: ratelimit <command> [options]

      Commands:
        simulate   replay a request trace through the real limiter on a manual clock
        help       show this text ('ratelimit simulate --help' for the simulator)
      """;

  static final String SIMULATE_HELP = """
      Usage: ratelimit simulate --limit NAME=SPEC [--limit NAME=SPEC ...]
                                [--input FILE] [--output FILE] [--plot FILE.svg]

      Replays a trace through the real limiter on a manual clock and prints one decision per
      input line.

      Options:
        --limit NAME=SPEC  a named limit, e.g. --limit api='token-bucket rate=10 period=1m'
                           or --limit api=10/1m (repeatable; names are kebab-case)
        --input FILE       the trace (default: standard input)
        --output FILE      the decisions, JSON Lines (default: standard output)
        --plot FILE.svg    draw units remaining over time for the busiest keys
        -h, --help         show this text

      Input, one request per line:
        JSON   {"t": <epoch ms>, "limit": "api", "key": "u1",
               "op": "limit|check|reserve|reset|take|refund", "count": 1}
               (op defaults to limit, count to 1, limit to the only declared one; take and
               refund settle a charge: units taken whatever the key holds, units given back)
        access log lines in Common or Combined Log Format: the key is the client address
               (needs a single declared limit)

      Output: each input line's fields plus "allowed", "remaining", "retryAfterMs" and
      "resetAfterMs"; a line that can't be decided gets "error": true and a "message", and the
      run goes on. A summary goes to standard error.

      Exit status: 0 when the trace was replayed, 1 when reading or writing failed midway,
      2 for a bad command line (a bad spec or name, no --limit, an unreadable input file).
      """;

  /** Runs one command line; never throws for bad input, never calls {@code System.exit}. */
  public int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
    if (args.length == 0) {
      err.println("ratelimit: no command given; try 'ratelimit --help'");
      return USAGE;
    }
    List<String> rest = Arrays.asList(args).subList(1, args.length);
    switch (args[0]) {
      case "simulate":
        return simulate(rest, in, out, err);
      case "help", "-h", "--help":
        if (rest.isEmpty()) {
          out.print(HELP);
          return OK;
        }
        if (rest.equals(List.of("simulate"))) {
          out.print(SIMULATE_HELP);
          return OK;
        }
        err.println("ratelimit: no help for '" + String.join(" ", rest) + "'; try 'ratelimit --help'");
        return USAGE;
      default:
        err.println("ratelimit: unknown command '" + args[0] + "'; try 'ratelimit --help'");
        return USAGE;
    }
  }

  private static int simulate(List<String> args, InputStream stdin, PrintStream stdout, PrintStream err) {
    SimulateOptions options;
    ManualClock clock = new ManualClock();
    RateLimiter limiter;
    try {
      options = SimulateOptions.parse(args);
      if (options.help()) {
        stdout.print(SIMULATE_HELP);
        return OK;
      }
      limiter = options.newLimiter(clock);
      options.checkFiles();
    } catch (UsageException e) {
      err.println("ratelimit simulate: " + e.getMessage());
      return USAGE;
    }

    Simulation.Result result;
    try (BufferedReader input = open(options.input(), stdin);
        Writer output = create(options.output(), stdout)) {
      result = new Simulation(limiter, clock).run(input, output, options.plot() != null);
    } catch (UsageException e) {
      err.println("ratelimit simulate: " + e.getMessage());
      return USAGE;
    } catch (IOException e) {
      err.println("ratelimit simulate: replay stopped: " + reason(e));
      return FAILED;
    }
    if (stdout.checkError()) {
      err.println("ratelimit simulate: could not write to standard output");
      return FAILED;
    }
    result.summary().print(err);

    if (options.plot() != null) {
      List<LevelTrace.Panel> panels = LevelTrace.panels(options, result, SvgPlot.PLOT_WIDTH);
      try {
        Files.writeString(options.plot(), new SvgPlot(panels).render(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        err.println("ratelimit simulate: cannot write --plot " + options.plot() + ": " + reason(e));
        return FAILED;
      }
    }
    return OK;
  }

  private static BufferedReader open(Path input, InputStream stdin) {
    if (input == null) {
      return new BufferedReader(new InputStreamReader(stdin, StandardCharsets.UTF_8));
    }
    if (Files.isDirectory(input)) {
      throw new UsageException("cannot read --input " + input + ": it is a directory");
    }
    try {
      return new BufferedReader(new InputStreamReader(Files.newInputStream(input), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UsageException("cannot read --input " + input + ": " + reason(e));
    }
  }

  /** A writer on {@code --output}, or one on standard output that leaves it open. */
  private static Writer create(Path output, PrintStream stdout) {
    if (output == null) {
      return new BufferedWriter(new OutputStreamWriter(stdout, StandardCharsets.UTF_8)) {
        @Override
        public void close() throws IOException {
          flush();
        }
      };
    }
    try {
      return Files.newBufferedWriter(output, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UsageException("cannot write --output " + output + ": " + reason(e));
    }
  }

  private static String reason(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file or directory";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }
}

package dev.ratelimit.cli;

import dev.ratelimit.ManualClock;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.InMemoryStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of {@code ratelimit simulate}.
 *
 * @param limits the {@code --limit} options in the order given (checked by {@link #newLimiter})
 * @param input the trace, or {@code null} for standard input
 * @param output where decisions go, or {@code null} for standard output
 * @param plot where the SVG plot goes, or {@code null} for none
 * @param help whether {@code --help} was asked for
 */
record SimulateOptions(List<LimitOption> limits, Path input, Path output, Path plot, boolean help) {
  private static final String SEE_HELP = "; see 'ratelimit simulate --help'";

  /** One {@code --limit NAME=SPEC}. */
  record LimitOption(String name, String spec) {}

  /**
   * Reads {@code --option VALUE} and {@code --option=VALUE} forms; {@code -} as a file is the
   * standard stream.
   *
   * @throws UsageException naming the bad option or value
   */
  static SimulateOptions parse(List<String> args) {
    if (args.contains("--help") || args.contains("-h")) {
      return new SimulateOptions(List.of(), null, null, null, true);
    }
    List<LimitOption> limits = new ArrayList<>();
    Path input = null;
    Path output = null;
    Path plot = null;
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (!arg.startsWith("--")) {
        throw new UsageException("unexpected argument '" + arg + "'" + SEE_HELP);
      }
      int eq = arg.indexOf('=');
      String option = eq < 0 ? arg : arg.substring(0, eq);
      String value;
      if (eq >= 0) {
        value = arg.substring(eq + 1);
      } else if (i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
        value = args.get(++i);
      } else {
        value = null;
      }
      switch (option) {
        case "--limit" -> limits.add(limitOption(required(option, value, "NAME=SPEC")));
        case "--input" -> input = once(option, input, required(option, value, "FILE"));
        case "--output" -> output = once(option, output, required(option, value, "FILE"));
        case "--plot" -> plot = once(option, plot, required(option, value, "FILE.svg"));
        default -> throw new UsageException("unknown option '" + option + "'" + SEE_HELP);
      }
    }
    if (limits.isEmpty()) {
      throw new UsageException("no --limit given; name at least one, e.g. --limit api='token-bucket rate=10 period=1m'");
    }
    return new SimulateOptions(List.copyOf(limits), stdio(input), stdio(output), plot, false);
  }

  /**
   * A limiter with these limits on {@code clock}.
   *
   * @throws UsageException naming the {@code --limit} whose name or spec is bad
   */
  RateLimiter newLimiter(ManualClock clock) {
    // the trace's time may go back, so no key may be dropped as fresh
    RateLimiter.Builder builder = RateLimiter.builder().clock(clock).store(InMemoryStore.keepingEveryKey(clock));
    for (LimitOption limit : limits) {
      try {
        builder.limit(limit.name(), limit.spec());
      } catch (IllegalArgumentException e) {
        throw new UsageException("bad --limit " + limit.name() + "=" + limit.spec() + ": " + e.getMessage());
      }
    }
    return builder.build();
  }

  /**
   * Fails before the replay, not after it, when a result could not be written or would overwrite
   * the input.
   *
   * @throws UsageException naming the option and the file
   */
  void checkFiles() {
    if (plot != null) {
      Path parent = plot.toAbsolutePath().getParent();
      if (parent != null && !Files.isDirectory(parent)) {
        throw new UsageException("cannot write --plot " + plot + ": no such directory " + parent);
      }
      if (Files.isDirectory(plot)) {
        throw new UsageException("cannot write --plot " + plot + ": it is a directory");
      }
    }
    refuseToOverwriteInput("--output", output);
    refuseToOverwriteInput("--plot", plot);
  }

  private void refuseToOverwriteInput(String option, Path file) {
    try {
      if (input != null && file != null && Files.exists(file) && Files.isSameFile(input, file)) {
        throw new UsageException("cannot write " + option + " " + file + ": it is the --input file");
      }
    } catch (IOException e) {
      // the input can't be read: opening it will say so
    }
  }

  /** Splits at the first '='; a name with spaces means there was no name: {@code --limit 'gcra rate=5 ...'}. */
  private static LimitOption limitOption(String value) {
    int eq = value.indexOf('=');
    String name = eq < 0 ? "" : value.substring(0, eq).strip();
    if (name.isEmpty() || name.chars().anyMatch(Character::isWhitespace)) {
      throw new UsageException("--limit needs NAME=SPEC, e.g. api='token-bucket rate=10 period=1m', but was '"
          + value + "'");
    }
    return new LimitOption(name, value.substring(eq + 1).strip());
  }

  private static String required(String option, String value, String what) {
    if (value == null) {
      throw new UsageException(option + " needs a value (" + what + ")" + SEE_HELP);
    }
    return value;
  }

  private static Path once(String option, Path previous, String value) {
    if (previous != null) {
      throw new UsageException(option + " given twice");
    }
    try {
      return Path.of(value);
    } catch (InvalidPathException e) {
      throw new UsageException("bad " + option + " '" + value + "': " + e.getReason());
    }
  }

  private static Path stdio(Path path) {
    return path != null && path.toString().equals("-") ? null : path;
  }
}

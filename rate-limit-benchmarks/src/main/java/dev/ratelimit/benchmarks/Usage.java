package dev.ratelimit.benchmarks;

/**
 * {@code --help} for the suites' {@code main} methods: prints how to run one and exits, so that a
 * command in docs/benchmarks.md can be checked without running a benchmark.
 */
public final class Usage {
  private Usage() {}

  /** Whether {@code args} ask for help ({@code --help} or {@code -h} first); if so, prints {@code text}. */
  public static boolean asked(String[] args, String text) {
    if (args.length > 0 && (args[0].equals("--help") || args[0].equals("-h"))) {
      System.out.println(text.strip());
      return true;
    }
    return false;
  }
}

package dev.ratelimit.cli;

/** {@code ratelimit}: the command line entry point (see {@link Cli}). */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.exit(new Cli().run(args, System.in, System.out, System.err));
  }
}

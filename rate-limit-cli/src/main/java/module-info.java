/**
 * The {@code ratelimit} command line: {@code ratelimit simulate} replays a trace through core's
 * limiter (docs/design.md §8). It exports nothing: it is run, never called, either as the flat
 * {@code ratelimit.jar} on the class path or as {@code java -m dev.ratelimit.cli/dev.ratelimit.cli.Main}.
 */
module dev.ratelimit.cli {
  requires dev.ratelimit.core;
}

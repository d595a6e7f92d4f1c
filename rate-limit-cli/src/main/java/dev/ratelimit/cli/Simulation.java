package dev.ratelimit.cli;

import dev.ratelimit.ManualClock;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.trace.TraceReplayer.Outcome;
import dev.ratelimit.trace.TraceReplayer.Request;
import dev.ratelimit.trace.TraceReplayer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;

/** Replays a trace, line by line, writing one output line per non-blank input line. */
final class Simulation {
  private final TraceReplayer replayer;
  private final Summary summary;

  /** @param limiter a limiter whose store reads {@code clock} */
  Simulation(RateLimiter limiter, ManualClock clock) {
    this.replayer = new TraceReplayer(limiter, clock);
    this.summary = new Summary(limiter.limits());
  }

  /** A line that was decided (or reset), kept to be replayed again for the plot. */
  record Replayed(TraceLine line, Request request) {}

  /**
   * @param summary the counts for standard error
   * @param replayed the lines that made a decision or a reset, if kept; error lines changed nothing
   */
  record Result(Summary summary, List<Replayed> replayed) {}

  /** @param keep whether to keep the decided lines (for the plot) */
  Result run(BufferedReader input, Writer output, boolean keep) throws IOException {
    List<Replayed> replayed = new ArrayList<>();
    int number = 0;
    for (String text = input.readLine(); text != null; text = input.readLine()) {
      number++;
      if (text.isBlank()) {
        continue;
      }
      TraceLine line = TraceLine.read(text);
      Outcome outcome = line.replayOn(replayer);
      output.write(outcome.json());
      output.write('\n');
      summary.add(number, outcome);
      if (keep && !outcome.isError()) {
        replayed.add(new Replayed(line, outcome.request()));
      }
    }
    return new Result(summary, replayed);
  }
}

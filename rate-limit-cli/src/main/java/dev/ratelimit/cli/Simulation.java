package dev.ratelimit.cli;

import dev.ratelimit.ManualClock;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.trace.TraceReplayer.Outcome;
import dev.ratelimit.trace.TraceReplayer.Request;
import dev.ratelimit.trace.TraceReplayer;
import java.io.IOException;
import java.io.Reader;
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

  /**
   * @param keep whether to keep the decided lines (for the plot)
   * @throws IOException when reading the input or writing a result fails
   */
  Result run(Reader input, Writer output, boolean keep) throws IOException {
    List<Replayed> replayed = new ArrayList<>();
    TraceLines lines = new TraceLines(input);
    int number = 0;
    for (TraceLines.Line next = lines.next(); next != null; next = lines.next()) {
      number++;
      Outcome outcome;
      TraceLine line = null;
      if (next instanceof TraceLines.TooLong tooLong) {
        outcome = TraceReplayer.unreadable(tooLong.start(), "line too long: " + tooLong.length() + " characters, over the bound of "
            + TraceLines.MAX_CHARS + "; skipped (\"input\" holds its first " + tooLong.start().length() + ")");
      } else {
        String text = ((TraceLines.Text) next).text();
        if (text.isBlank()) {
          continue;
        }
        try {
          line = TraceLine.read(text);
          outcome = line.replayOn(replayer);
        } catch (RuntimeException e) {
          // a line the replayer did not foresee: an error line like any other, and the run goes on
          line = null;
          outcome = TraceReplayer.unreadable(text, "could not replay the line: " + e);
        }
      }
      output.write(outcome.json());
      output.write('\n');
      summary.add(number, outcome);
      if (keep && line != null && !outcome.isError()) {
        replayed.add(new Replayed(line, outcome.request()));
      }
    }
    return new Result(summary, replayed);
  }
}

package dev.ratelimit.cli;

import dev.ratelimit.trace.TraceReplayer;
import dev.ratelimit.trace.TraceReplayer.Outcome;
import java.util.Map;

/** One non-blank input line, read as what it is: JSON, an access log line, or neither. */
sealed interface TraceLine {

  /** Replays this line; the outcome's JSON is its output line. */
  Outcome replayOn(TraceReplayer replayer);

  static TraceLine read(String line) {
    if (line.strip().startsWith("{")) {
      return new Json(line);
    }
    try {
      return new AccessLogLine(AccessLog.fields(line));
    } catch (IllegalArgumentException e) {
      return new Unreadable(line, e.getMessage());
    }
  }

  /** A JSON Lines request: the replayer reads it, or says why it can't. */
  record Json(String line) implements TraceLine {
    @Override
    public Outcome replayOn(TraceReplayer replayer) {
      return replayer.replay(line);
    }
  }

  /** An access log line, as fields the output echoes. */
  record AccessLogLine(Map<String, String> fields) implements TraceLine {
    @Override
    public Outcome replayOn(TraceReplayer replayer) {
      return replayer.replay(fields);
    }
  }

  /** A line that is neither: an error line with the raw input, as the replayer writes for bad JSON. */
  record Unreadable(String line, String message) implements TraceLine {
    @Override
    public Outcome replayOn(TraceReplayer replayer) {
      return TraceReplayer.unreadable(line, message);
    }
  }
}

package dev.ratelimit.cli;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.internal.LongKeys;
import dev.ratelimit.trace.TraceReplayer;
import dev.ratelimit.trace.TraceReplayer.Outcome;
import dev.ratelimit.trace.TraceReplayer.Request;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the plot shows: the units remaining over time for the busiest keys of each limit. The
 * decided lines are replayed again on a fresh limiter; before each request of a plotted key its
 * level is probed at about one sample per pixel since that key's previous event (a token bucket
 * refills in between), and after each request its {@code remaining} is recorded.
 */
final class LevelTrace {
  static final int MAX_PANELS = 4;
  static final int MAX_KEYS = 5;

  private LevelTrace() {}

  /**
   * One limit's panel.
   *
   * @param keys how many keys the limit saw (only the busiest are in {@code series}); when
   *     {@code moreKeys}, how many of them the summary kept
   * @param moreKeys whether the limit saw more keys than the summary counts exactly
   * @param start the time of the first request of the whole trace, epoch ms (the x origin)
   * @param end the time of the last request of the whole trace
   */
  record Panel(String name, Limit limit, int keys, boolean moreKeys, int admitted, int denied, long start, long end,
      List<Series> series) {}

  /** One key's line: its level over time and its requests. */
  record Series(String key, int requests, int denied, List<Point> levels, List<Mark> marks) {}

  /** Units remaining at a time (epoch ms). */
  record Point(long t, double units) {}

  /** A request: where it left the level, and whether it was admitted. */
  record Mark(long t, double units, boolean allowed) {}

  /**
   * The panels of the first {@value #MAX_PANELS} declared limits that made decisions, each with
   * its {@value #MAX_KEYS} busiest keys.
   *
   * @param options the limits, to build a fresh limiter
   * @param widthPx the plot's width: about one sample per pixel between events
   */
  static List<Panel> panels(SimulateOptions options, Simulation.Result result, int widthPx) {
    List<Simulation.Replayed> replayed = result.replayed();
    long start = replayed.stream().mapToLong(r -> r.request().t()).min().orElse(0);
    long end = replayed.stream().mapToLong(r -> r.request().t()).max().orElse(0);
    double millisPerSample = Math.max(1, (end - start) / (double) widthPx);

    ManualClock clock = new ManualClock();
    TraceReplayer replayer = new TraceReplayer(options.newLimiter(clock), clock);
    Map<String, Map<String, Sampler>> plotted = new LinkedHashMap<>();
    result.summary().limits().forEach((name, counts) -> {
      if (counts.decisions() > 0 && plotted.size() < MAX_PANELS) {
        Map<String, Sampler> keys = new LinkedHashMap<>();
        for (String key : counts.busiestKeys(MAX_KEYS)) {
          keys.put(key, new Sampler(replayer, name, key, millisPerSample, widthPx));
        }
        plotted.put(name, keys);
      }
    });

    for (Simulation.Replayed line : replayed) {
      Request request = line.request();
      Sampler sampler = plotted.getOrDefault(request.limit(), Map.of()).get(LongKeys.bounded(request.key()));
      if (sampler != null) {
        sampler.sampleUntil(request.t());
      }
      Outcome outcome = line.line().replayOn(replayer);
      if (sampler != null) {
        sampler.record(request.t(), outcome.decision(), !request.settles());
      }
    }

    List<Panel> panels = new ArrayList<>();
    plotted.forEach((name, samplers) -> {
      Summary.Counts counts = result.summary().limits().get(name);
      List<Series> series = new ArrayList<>();
      samplers.forEach((key, sampler) -> {
        sampler.sampleUntil(end); // how the key recovers after its last request
        series.add(new Series(key, counts.requests(key), counts.denied(key), sampler.levels, sampler.marks));
      });
      panels.add(new Panel(name, counts.limit(), counts.keys(), counts.approximate(), counts.admitted(), counts.denied(),
          start, end, series));
    });
    return panels;
  }

  /** Records one key's level over time. */
  private static final class Sampler {
    private final TraceReplayer replayer;
    private final String limit;
    private final String key;
    private final double millisPerSample;
    private final int maxSamplesPerGap;
    private final List<Point> levels = new ArrayList<>();
    private final List<Mark> marks = new ArrayList<>();
    /** The latest time this key was seen at, or {@code null} before its first request. */
    private Long last;

    Sampler(TraceReplayer replayer, String limit, String key, double millisPerSample, int maxSamplesPerGap) {
      this.replayer = replayer;
      this.limit = limit;
      this.key = key;
      this.millisPerSample = millisPerSample;
      this.maxSamplesPerGap = maxSamplesPerGap;
    }

    /** Probes the level from the previous event up to and including {@code t}, if time moved on. */
    void sampleUntil(long t) {
      if (last == null) {
        levels.add(new Point(t, probe(t))); // a cold key: full
        last = t;
        return;
      }
      long gap = t - last;
      if (gap <= 0) {
        return;
      }
      long samples = Math.min(maxSamplesPerGap, (long) Math.ceil(gap / millisPerSample));
      for (long k = 1; k <= samples; k++) {
        long at = last + Math.round(gap * (double) k / samples);
        levels.add(new Point(at, probe(at)));
      }
      last = t;
    }

    /**
     * @param decision the request's decision, or {@code null} for a reset
     * @param marked whether it is a request, drawn as a dot or a cross (a settlement is not)
     */
    void record(long t, Decision decision, boolean marked) {
      double units = decision != null ? decision.remaining() : probe(t);
      levels.add(new Point(t, units));
      if (decision != null && marked) {
        marks.add(new Mark(t, units, decision.allowed()));
      }
      last = Math.max(last, t);
    }

    private double probe(long t) {
      return replayer.probe(limit, key, t).remaining();
    }
  }
}

package dev.ratelimit.cli;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.internal.LongKeys;
import dev.ratelimit.internal.SpaceSaving;
import dev.ratelimit.trace.TraceReplayer.Outcome;
import java.io.PrintStream;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What a replay did, per limit and per key, printed on standard error at the end. Per key it
 * counts exactly up to {@value #MAX_KEYS} keys a limit, then in the same heavy-hitters sketch as
 * the limiter's top keys (docs/design.md §8, §10.2): memory stays bounded however many keys the
 * trace has, and the summary says its counts are approximate.
 */
final class Summary {
  static final int TOP_DENIED = 5;
  /** The keys per limit counted exactly; past them, counts per key are approximate. */
  static final int MAX_KEYS = 10_000;

  private final Map<String, Counts> limits = new LinkedHashMap<>();
  private int lines;
  private int errors;
  private String firstError;

  Summary(Map<String, Limit> limits) {
    this(limits, MAX_KEYS);
  }

  /** @param maxKeys the keys per limit counted exactly */
  Summary(Map<String, Limit> limits, int maxKeys) {
    limits.forEach((name, limit) -> this.limits.put(name, new Counts(limit, maxKeys)));
  }

  /** The counts of one limit. */
  static final class Counts {
    private final Limit limit;
    private int admitted;
    private int denied;
    private int resets;
    /** Takes and refunds: units settled, not decisions on requests. */
    private int settlements;
    /** Decisions per key (each a weight of 1), the denied ones apart; keys as the limiter bounds them. */
    private final SpaceSaving perKey;

    private Counts(Limit limit, int maxKeys) {
      this.limit = limit;
      this.perKey = new SpaceSaving(maxKeys);
    }

    Limit limit() {
      return limit;
    }

    int admitted() {
      return admitted;
    }

    int denied() {
      return denied;
    }

    int decisions() {
      return admitted + denied;
    }

    /** How many keys had decisions; when {@link #approximate}, how many are kept of more. */
    int keys() {
      return perKey.size();
    }

    /** Whether there were more keys than are counted exactly: counts per key are then approximate. */
    boolean approximate() {
      return !perKey.exact();
    }

    /** The most a count per key may be short of the truth: 0 while exact. */
    long shortBy() {
      return (long) perKey.absentBound();
    }

    /** The decisions on {@code key} (never more than there were; short by at most {@link #shortBy}). */
    int requests(String key) {
      SpaceSaving.Count count = perKey.get(LongKeys.bounded(key));
      return count == null ? 0 : (int) count.counted();
    }

    /** The denials of {@code key} (never more than there were; short by at most {@link #shortBy}). */
    int denied(String key) {
      SpaceSaving.Count count = perKey.get(LongKeys.bounded(key));
      return count == null ? 0 : (int) count.denied();
    }

    /** The keys with the most decisions, most first (ties: the key seen first). */
    List<String> busiestKeys(int max) {
      return perKey.counts().stream()
          .sorted(Comparator.comparingDouble(SpaceSaving.Count::upperBound).reversed()
              .thenComparingLong(SpaceSaving.Count::arrival))
          .limit(max)
          .map(SpaceSaving.Count::key)
          .toList();
    }

    /** The keys denied most, most first (ties: by key). */
    List<Map.Entry<String, Integer>> mostDenied(int max) {
      return perKey.counts().stream()
          .filter(count -> count.denied() > 0)
          .sorted(Comparator.comparingDouble(SpaceSaving.Count::denied).reversed()
              .thenComparing(SpaceSaving.Count::key))
          .limit(max)
          .map(count -> Map.entry(count.key(), (int) count.denied()))
          .toList();
    }
  }

  void add(int lineNumber, Outcome outcome) {
    lines++;
    if (outcome.isError()) {
      errors++;
      if (firstError == null) {
        firstError = "line " + lineNumber + ": " + outcome.error();
      }
      return;
    }
    Counts counts = limits.get(outcome.request().limit());
    Decision decision = outcome.decision();
    if (decision == null) {
      counts.resets++;
      return;
    }
    if (outcome.request().settles()) {
      counts.settlements++;
      return;
    }
    counts.perKey.add(LongKeys.bounded(outcome.request().key()), 1, !decision.allowed());
    if (decision.allowed()) {
      counts.admitted++;
    } else {
      counts.denied++;
    }
  }

  /** The counts per limit, in the order the limits were declared. */
  Map<String, Counts> limits() {
    return limits;
  }

  /**
   * For example:
   *
   * <pre>
   * ratelimit simulate: 412 lines
   *   api (token-bucket rate=5 period=1s capacity=10): 300 admitted, 110 denied
   *     most denied: scraper 96, batch-sync 14
   *   error lines: 2 (first: line 17: bad JSON at column 5: expected ':')
   * </pre>
   *
   * <p>Past {@value #MAX_KEYS} keys a limit, a line under its counts says that they are approximate
   * and by how much at most.
   */
  void print(PrintStream err) {
    err.println("ratelimit simulate: " + lines + (lines == 1 ? " line" : " lines"));
    limits.forEach((name, counts) -> {
      String resets = counts.resets == 0 ? "" : ", " + counts.resets + (counts.resets == 1 ? " reset" : " resets");
      String settled = counts.settlements == 0 ? ""
          : ", " + counts.settlements + (counts.settlements == 1 ? " settlement" : " settlements");
      err.println("  " + name + " (" + counts.limit + "): "
          + (counts.decisions() == 0 && counts.resets == 0 && counts.settlements == 0
              ? "no requests"
              : counts.admitted + " admitted, " + counts.denied + " denied" + settled + resets));
      if (counts.denied > 0 && !counts.mostDenied(TOP_DENIED).isEmpty()) {
        err.println("    most denied: " + counts.mostDenied(TOP_DENIED).stream()
            .map(e -> display(e.getKey()) + " " + e.getValue())
            .collect(Collectors.joining(", ")));
      }
      if (counts.approximate()) {
        err.println("    more than " + counts.keys() + " keys: counts per key are approximate, each at most "
            + counts.shortBy() + " short");
      }
    });
    err.println("  error lines: " + errors + (firstError == null ? "" : " (first: " + firstError + ")"));
  }

  /** A key as printed: the global key is {@code ""}. */
  static String display(String key) {
    return key.isEmpty() ? "\"\"" : key;
  }
}

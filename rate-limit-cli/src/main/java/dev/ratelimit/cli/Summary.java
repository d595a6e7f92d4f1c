package dev.ratelimit.cli;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.trace.TraceReplayer.Outcome;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** What a replay did, per limit and per key, printed on standard error at the end. */
final class Summary {
  static final int TOP_DENIED = 5;

  private final Map<String, Counts> limits = new LinkedHashMap<>();
  private int lines;
  private int errors;
  private String firstError;

  Summary(Map<String, Limit> limits) {
    limits.forEach((name, limit) -> this.limits.put(name, new Counts(limit)));
  }

  /** The counts of one limit. */
  static final class Counts {
    private final Limit limit;
    private int admitted;
    private int denied;
    private int resets;
    /** Takes and refunds: units settled, not decisions on requests. */
    private int settlements;
    /** Decisions per key, in the order keys first appeared. */
    private final Map<String, Integer> requests = new LinkedHashMap<>();
    private final Map<String, Integer> deniedByKey = new HashMap<>();

    private Counts(Limit limit) {
      this.limit = limit;
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

    /** How many keys had decisions. */
    int keys() {
      return requests.size();
    }

    /** The decisions on {@code key}. */
    int requests(String key) {
      return requests.getOrDefault(key, 0);
    }

    /** The denials of {@code key}. */
    int denied(String key) {
      return deniedByKey.getOrDefault(key, 0);
    }

    /** The keys with the most decisions, most first (ties: the key seen first). */
    List<String> busiestKeys(int max) {
      return requests.entrySet().stream()
          .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
          .limit(max)
          .map(Map.Entry::getKey)
          .toList();
    }

    /** The keys denied most, most first (ties: by key). */
    List<Map.Entry<String, Integer>> mostDenied(int max) {
      return deniedByKey.entrySet().stream()
          .sorted(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
          .limit(max)
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
    String key = outcome.request().key();
    counts.requests.merge(key, 1, Integer::sum);
    if (decision.allowed()) {
      counts.admitted++;
    } else {
      counts.denied++;
      counts.deniedByKey.merge(key, 1, Integer::sum);
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
      if (counts.denied > 0) {
        err.println("    most denied: " + counts.mostDenied(TOP_DENIED).stream()
            .map(e -> display(e.getKey()) + " " + e.getValue())
            .collect(Collectors.joining(", ")));
      }
    });
    err.println("  error lines: " + errors + (firstError == null ? "" : " (first: " + firstError + ")"));
  }

  /** A key as printed: the global key is {@code ""}. */
  static String display(String key) {
    return key.isEmpty() ? "\"\"" : key;
  }
}

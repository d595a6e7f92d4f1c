package dev.ratelimit.contract;

import dev.ratelimit.ManualClock;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.trace.JsonLine;
import dev.ratelimit.trace.TraceReplayer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The conformance vectors of {@code shared/vectors/} (a copy ships in this test-jar under
 * {@code /vectors/}, with this repository's own scenarios beside it), their replay through a
 * store, and the comparison rules of their README.
 */
public final class Vectors {
  private Vectors() {}

  /** One scenario: its limits ({@code NAME=SPEC}), input lines and expected output lines. */
  public record Scenario(String name, List<String> limits, List<String> input, List<String> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  /**
   * Every scenario: the shared ones ({@code scenarios.txt}), then this repository's own
   * ({@code scenarios-local.txt}: ops the shared format does not have yet, docs/design.md §9).
   */
  public static List<Scenario> all() {
    List<Scenario> scenarios = new ArrayList<>();
    for (String list : List.of("scenarios.txt", "scenarios-local.txt")) {
      for (String name : lines(list)) {
        scenarios.add(new Scenario(name, lines(name + ".limits"), lines(name + ".in.jsonl"),
            lines(name + ".expected.jsonl")));
      }
    }
    return scenarios;
  }

  /** Replays a scenario through a limiter on a fresh store, as {@code ratelimit simulate} does. */
  public static List<String> replay(Scenario scenario, Function<ManualClock, RateLimitStore> stores) {
    ManualClock clock = new ManualClock();
    RateLimiter.Builder builder = RateLimiter.builder().clock(clock).store(stores.apply(clock));
    for (String limit : scenario.limits()) {
      int eq = limit.indexOf('=');
      builder.limit(limit.substring(0, eq).strip(), limit.substring(eq + 1).strip());
    }
    try (RateLimiter limiter = builder.build()) {
      TraceReplayer replayer = new TraceReplayer(limiter, clock);
      List<String> output = new ArrayList<>();
      for (String line : scenario.input()) {
        output.add(replayer.replay(line).json());
      }
      return output;
    }
  }

  /**
   * Compares output with the expected lines: {@code allowed}, {@code error} and {@code reset}
   * exactly; {@code remaining} within 1e-9 relative; waits within ±1 ms; input fields equal.
   *
   * @throws AssertionError naming the scenario, the line and the difference
   */
  public static void assertMatches(Scenario scenario, List<String> actual) {
    if (actual.size() != scenario.expected().size()) {
      throw new AssertionError(scenario + ": " + actual.size() + " output lines, expected "
          + scenario.expected().size());
    }
    for (int i = 0; i < actual.size(); i++) {
      String problem = difference(scenario.input().get(i), scenario.expected().get(i), actual.get(i));
      if (problem != null) {
        throw new AssertionError(scenario + " line " + (i + 1) + ": " + problem + "\n  input:    "
            + scenario.input().get(i) + "\n  expected: " + scenario.expected().get(i) + "\n  actual:   " + actual.get(i));
      }
    }
  }

  private static String difference(String inputLine, String expectedLine, String actualLine) {
    Map<String, String> input = JsonLine.parse(inputLine);
    Map<String, String> expected = JsonLine.parse(expectedLine);
    Map<String, String> actual = JsonLine.parse(actualLine);
    for (Map.Entry<String, String> field : input.entrySet()) {
      if (!field.getValue().equals(actual.get(field.getKey()))) {
        return "input field \"" + field.getKey() + "\" not echoed as given";
      }
    }
    for (String flag : List.of("allowed", "error", "reset")) {
      if (!"true".equals(expected.get(flag)) == "true".equals(actual.get(flag))) {
        return "\"" + flag + "\" differs";
      }
    }
    if (expected.containsKey("remaining")) {
      if (!actual.containsKey("remaining")) {
        return "no \"remaining\"";
      }
      double want = Double.parseDouble(expected.get("remaining"));
      double got = Double.parseDouble(actual.get("remaining"));
      if (Math.abs(got - want) > 1e-9 * Math.max(1, Math.abs(want))) {
        return "\"remaining\" differs";
      }
    }
    for (String wait : List.of("retryAfterMs", "resetAfterMs")) {
      if (expected.containsKey(wait)) {
        if (!actual.containsKey(wait)) {
          return "no \"" + wait + "\"";
        }
        if (Math.abs(Long.parseLong(actual.get(wait)) - Long.parseLong(expected.get(wait))) > 1) {
          return "\"" + wait + "\" differs by more than 1 ms";
        }
      }
    }
    return null;
  }

  private static List<String> lines(String resource) {
    try (InputStream in = Vectors.class.getResourceAsStream("/vectors/" + resource)) {
      if (in == null) {
        throw new IllegalStateException("no vector resource /vectors/" + resource);
      }
      List<String> lines = new ArrayList<>();
      BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        if (!line.isBlank()) {
          lines.add(line);
        }
      }
      return lines;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

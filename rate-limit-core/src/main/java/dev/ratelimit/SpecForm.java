package dev.ratelimit;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The spec syntax of one kind (docs/design.md §5): its name, the parameters it accepts, those it
 * needs, and how a spec builds the limit. What the kind does with the limit (its algorithm, shard
 * split and store arguments) is its descriptor's, in {@code dev.ratelimit.algorithm}, which sits
 * above this package.
 */
record SpecForm(String kind, List<String> params, List<String> required, Function<SpecParams, Limit> build) {
  private static final List<String> RATE_PERIOD = List.of("rate", "period");

  /** Every kind's form, in the order errors list them. */
  private static final Map<String, SpecForm> FORMS = index(
      new SpecForm("token-bucket",
          List.of("rate", "period", "capacity", "maxReserved", "shards", "failure", "mode", "lease"),
          RATE_PERIOD, p -> new TokenBucket(p.rate(), p.period(), p.capacity(), p.maxReserved(), p.shards(),
              p.failure(), p.mode(), p.lease())),
      new SpecForm("gcra", List.of("rate", "period", "capacity", "maxReserved", "shards", "failure", "mode", "lease"),
          RATE_PERIOD, p -> new Gcra(p.rate(), p.period(), p.capacity(), p.maxReserved(), p.shards(), p.failure(),
              p.mode(), p.lease())),
      new SpecForm("fixed-window",
          List.of("rate", "period", "capacity", "maxReserved", "shards", "start", "phase", "failure", "mode"),
          RATE_PERIOD, p -> new FixedWindow(p.rate(), p.period(), p.capacity(), p.maxReserved(), p.shards(),
              p.start(), p.randomPhase(), p.failure(), p.mode())),
      new SpecForm("sliding-window", List.of("rate", "period", "buckets", "failure", "mode"), RATE_PERIOD,
          p -> new SlidingWindow(p.rate(), p.period(), p.buckets(), p.failure(), p.mode())),
      new SpecForm("sliding-log", List.of("rate", "period", "failure", "mode"), RATE_PERIOD,
          p -> new SlidingLog(p.rate(), p.period(), p.failure(), p.mode())),
      new SpecForm("quota", List.of("rate", "cadence", "offset", "failure", "mode"), List.of("rate", "cadence"),
          p -> new Quota(p.rate(), p.cadence(), p.offset(), p.failure(), p.mode())));

  private static Map<String, SpecForm> index(SpecForm... forms) {
    Map<String, SpecForm> index = new LinkedHashMap<>();
    for (SpecForm form : forms) {
      index.put(form.kind, form);
    }
    return index;
  }

  /** The form of the kind written {@code kind} in a spec, or {@code null}. */
  static SpecForm named(String kind) {
    return FORMS.get(kind);
  }

  /** The kinds' names, for error messages. */
  static String allowed() {
    return String.join(", ", FORMS.keySet());
  }
}

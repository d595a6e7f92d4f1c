package dev.ratelimit;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the one limit syntax used everywhere (docs/design.md §5): {@code KIND name=value ...} or the
 * shorthand {@code RATE/PERIOD [name=value ...]} for a token bucket. Every error names the spec,
 * the bad token and what is allowed. Each kind's parameters and how they build it are the kind's
 * {@link SpecForm}'s.
 */
final class SpecParser {

  private SpecParser() {}

  /**
   * Parses one spec.
   *
   * @throws InvalidLimitSpecException naming the spec, the bad token and what is allowed
   */
  static Limit parse(String spec) {
    if (spec == null) {
      throw new InvalidLimitSpecException("limit spec is missing (null); expected e.g. \"token-bucket rate=10 period=1m\" or \"10/1m\"", null, null);
    }
    String text = spec.strip();
    if (text.isEmpty()) {
      throw new InvalidLimitSpecException(
          "empty limit spec; expected e.g. \"token-bucket rate=10 period=1m\" or \"10/1m\"", spec, spec);
    }
    String[] tokens = text.split("\\s+");
    Map<String, String> values = new LinkedHashMap<>();
    SpecForm kind;
    if (tokens[0].contains("/") && !tokens[0].contains("=")) {
      kind = SpecForm.named("token-bucket");
      String[] shorthand = tokens[0].split("/", -1);
      if (shorthand.length != 2 || shorthand[0].isEmpty() || shorthand[1].isEmpty()) {
        throw new InvalidLimitSpecException("bad shorthand '" + tokens[0] + "' in " + SpecParams.quote(spec)
            + "; expected RATE/PERIOD such as 10/1m", spec, tokens[0]);
      }
      values.put("rate", shorthand[0]);
      values.put("period", shorthand[1]);
    } else {
      kind = SpecForm.named(tokens[0]);
      if (kind == null) {
        throw new InvalidLimitSpecException("unknown limit kind '" + tokens[0] + "' in " + SpecParams.quote(spec)
            + "; allowed: " + SpecForm.allowed() + ", or the shorthand RATE/PERIOD such as 10/1m", spec, tokens[0]);
      }
    }
    for (int i = 1; i < tokens.length; i++) {
      String token = tokens[i];
      int eq = token.indexOf('=');
      if (eq <= 0) {
        throw new InvalidLimitSpecException("expected NAME=VALUE but found '" + token + "' in " + SpecParams.quote(spec)
            + "; allowed names: " + String.join(", ", kind.params()), spec, token);
      }
      String name = token.substring(0, eq);
      String value = token.substring(eq + 1);
      if (!kind.params().contains(name)) {
        throw new InvalidLimitSpecException("unknown parameter '" + name + "' in " + SpecParams.quote(spec) + "; allowed: "
            + String.join(", ", kind.params()), spec, token);
      }
      if (values.containsKey(name)) {
        throw new InvalidLimitSpecException("parameter '" + name + "' is given twice in " + SpecParams.quote(spec), spec, token);
      }
      if (value.isEmpty()) {
        throw new InvalidLimitSpecException("parameter '" + name + "' has no value in " + SpecParams.quote(spec), spec, token);
      }
      values.put(name, value);
    }
    for (String required : kind.required()) {
      if (!values.containsKey(required)) {
        throw new InvalidLimitSpecException("missing parameter '" + required + "' in " + SpecParams.quote(spec) + "; "
            + kind.kind() + " needs " + String.join(" and ", kind.required()), spec, spec);
      }
    }
    SpecParams params = new SpecParams(spec, values);
    try {
      return kind.build().apply(params);
    } catch (InvalidLimitSpecException e) {
      throw e;
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new InvalidLimitSpecException("invalid limit spec " + SpecParams.quote(spec) + ": " + e.getMessage(), spec, spec);
    }
  }
}

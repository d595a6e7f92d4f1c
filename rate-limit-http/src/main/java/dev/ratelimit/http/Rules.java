package dev.ratelimit.http;

import java.util.ArrayList;
import java.util.List;

/** The rules of one filter, in order; every rule that matches a request applies to it. */
public final class Rules {
  private static final Rule[] NONE = {};

  private final Rule[] rules;
  private final Rule[] fallback;
  private final boolean needsPath;
  /** Whether some rule applies to some methods only: then the method is matched too. */
  private final boolean byMethod;

  public Rules(List<Rule> rules) {
    List<Rule> matching = new ArrayList<>();
    List<Rule> fallback = new ArrayList<>();
    for (Rule rule : rules) {
      (rule.pattern().kind() == UrlPattern.Kind.DEFAULT ? fallback : matching).add(rule);
    }
    this.rules = matching.toArray(NONE);
    this.fallback = fallback.toArray(NONE);
    this.byMethod = rules.stream().anyMatch(rule -> rule.methods() != null);
    this.needsPath = byMethod || matching.stream().anyMatch(rule -> rule.pattern().kind() != UrlPattern.Kind.ALL);
  }

  /** The rules for this request, in configuration order: those whose pattern matches, else the {@code /} ones. */
  public Rule[] matching(Request request) {
    if (!needsPath) {
      return rules.length > 0 ? rules : fallback;
    }
    return byMethod ? matching(request.path(), request.method()) : matching(request.path());
  }

  public Rule[] matching(String path) {
    int count = 0;
    for (Rule rule : rules) {
      if (rule.pattern().matches(path)) {
        count++;
      }
    }
    if (count == 0) {
      return fallback;
    }
    if (count == rules.length) {
      return rules;
    }
    Rule[] matched = new Rule[count];
    int at = 0;
    for (Rule rule : rules) {
      if (rule.pattern().matches(path)) {
        matched[at++] = rule;
      }
    }
    return matched;
  }

  /** Every rule, in configuration order of matching ones first, then the {@code /} ones. */
  public List<Rule> all() {
    List<Rule> all = new ArrayList<>(List.of(rules));
    all.addAll(List.of(fallback));
    return all;
  }

  /**
   * The rules for a path and method: those whose pattern and methods match, else the {@code /}
   * ones that apply to the method.
   */
  public Rule[] matching(String path, String method) {
    List<Rule> matched = new ArrayList<>();
    for (Rule rule : rules) {
      if (rule.pattern().matches(path) && rule.appliesTo(method)) {
        matched.add(rule);
      }
    }
    if (matched.isEmpty()) {
      for (Rule rule : fallback) {
        if (rule.appliesTo(method)) {
          matched.add(rule);
        }
      }
    }
    return matched.toArray(NONE);
  }

  public boolean isEmpty() {
    return rules.length == 0 && fallback.length == 0;
  }
}

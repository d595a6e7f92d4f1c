package dev.ratelimit.http;

import java.util.ArrayList;
import java.util.List;

/** The rules of one filter, in order; every rule that matches a request applies to it. */
public final class Rules {
  private static final Rule[] NONE = {};

  private final Rule[] rules;
  private final Rule[] fallback;
  private final boolean needsPath;

  public Rules(List<Rule> rules) {
    List<Rule> matching = new ArrayList<>();
    List<Rule> fallback = new ArrayList<>();
    for (Rule rule : rules) {
      (rule.pattern().kind() == UrlPattern.Kind.DEFAULT ? fallback : matching).add(rule);
    }
    this.rules = matching.toArray(NONE);
    this.fallback = fallback.toArray(NONE);
    this.needsPath = matching.stream().anyMatch(rule -> rule.pattern().kind() != UrlPattern.Kind.ALL);
  }

  /** The rules for this request, in configuration order: those whose pattern matches, else the {@code /} ones. */
  public Rule[] matching(Request request) {
    if (!needsPath) {
      return rules.length > 0 ? rules : fallback;
    }
    return matching(request.path());
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

  public boolean isEmpty() {
    return rules.length == 0 && fallback.length == 0;
  }
}

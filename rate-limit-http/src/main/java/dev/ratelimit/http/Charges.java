package dev.ratelimit.http;

import dev.ratelimit.Decision;
import dev.ratelimit.Decisions;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.LimitCall;
import dev.ratelimit.RateLimiter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * What one request is charged: each rule that applies to it with the key it spends from, after
 * the missing-key policy; and spending that, all or nothing, once per request, blocking (a
 * servlet thread) or not (an event loop).
 */
public final class Charges {
  private static final Rule[] NO_RULES = {};
  private static final Charges NONE = new Charges(NO_RULES, new String[0], null);

  /** What a spend ended in: admitted, or denied by {@code limit}, which frees up after the wait. */
  public record Verdict(boolean allowed, String limit, long retryAfterMillis) {
    static final Verdict ADMITTED = new Verdict(true, null, 0);
  }

  private final Rule[] rules;
  private final String[] keys;
  private final Problem missingKey;

  private Charges(Rule[] rules, String[] keys, Problem missingKey) {
    this.rules = rules;
    this.keys = keys;
    this.missingKey = missingKey;
  }

  /**
   * The matched rules with their keys, bounded for the store. Under {@code skip} a rule without
   * a key drops out; under {@code deny} the result is only the {@link #missingKey()} refusal.
   */
  public static Charges of(Rule[] matched, Request request, MissingKey policy) {
    if (matched.length == 0) {
      return NONE;
    }
    String[] keys = new String[matched.length];
    int applied = 0;
    for (int i = 0; i < matched.length; i++) {
      String key = matched[i].key().resolve(request);
      if (key == null) {
        switch (policy) {
          case GLOBAL -> key = "";
          case SKIP -> {
            continue;
          }
          case DENY -> {
            return new Charges(NO_RULES, keys, Problem.missingKey(matched[i].limit(), matched[i].keyName()));
          }
        }
      }
      keys[i] = Keys.bounded(key);
      applied++;
    }
    if (applied == matched.length) {
      return new Charges(matched, keys, null);
    }
    // rules whose key was missing under "skip" drop out (matched is shared: copy, never write to it)
    Rule[] rules = new Rule[applied];
    String[] present = new String[applied];
    for (int i = 0, at = 0; i < matched.length; i++) {
      if (keys[i] != null) {
        rules[at] = matched[i];
        present[at++] = keys[i];
      }
    }
    return new Charges(rules, present, null);
  }

  /** The 400 to answer when a rule under {@code missing-key=deny} found no key; else null. */
  public Problem missingKey() {
    return missingKey;
  }

  /** Nothing to spend: no rule matched, or every one that did was skipped. */
  public boolean isEmpty() {
    return rules.length == 0;
  }

  /**
   * Spends every charge or none, and sets the rate limit headers of the decision.
   *
   * @throws dev.ratelimit.StoreUnavailableException when the store is down and a limit's policy is closed
   */
  public Verdict spend(RateLimiter limiter, RateLimitHeaders headers, Response response) {
    if (rules.length == 1) {
      // the usual case, without the all-or-nothing call's lists
      return verdict(limiter.limit(rules[0].limit(), keys[0], rules[0].cost()), limiter, headers, response);
    }
    return verdict(limiter.limitAll(calls()), limiter, headers, response);
  }

  /**
   * {@link #spend} without blocking: the store's asynchronous call; the headers are set when the
   * decision arrives.
   *
   * @return a stage failing with {@link dev.ratelimit.StoreUnavailableException} (perhaps in a
   *     {@link java.util.concurrent.CompletionException}) when a closed limit can't be decided
   */
  public CompletionStage<Verdict> spendAsync(RateLimiter limiter, RateLimitHeaders headers, Response response) {
    if (rules.length == 1) {
      return limiter.limitAsync(rules[0].limit(), keys[0], rules[0].cost())
          .thenApply(decision -> verdict(decision, limiter, headers, response));
    }
    return limiter.limitAllAsync(calls()).thenApply(decisions -> verdict(decisions, limiter, headers, response));
  }

  /** The one rule's decision, on the response's headers. */
  private Verdict verdict(Decision decision, RateLimiter limiter, RateLimitHeaders headers, Response response) {
    headers.write(response, rules[0], decision, limiter.clock());
    return decision.allowed() ? Verdict.ADMITTED : new Verdict(false, rules[0].limit(), decision.retryAfterMillis());
  }

  /** Several rules' decisions, all or nothing, on the response's headers. */
  private Verdict verdict(Decisions decisions, RateLimiter limiter, RateLimitHeaders headers, Response response) {
    headers.write(response, rules, decisions, limiter.clock());
    return decisions.allowed() ? Verdict.ADMITTED
        : new Verdict(false, rules[decisions.mostRestrictive()].limit(), decisions.retryAfterMillis());
  }

  private List<LimitCall> calls() {
    List<LimitCall> calls = new ArrayList<>(rules.length);
    for (int i = 0; i < rules.length; i++) {
      calls.add(new LimitCall(rules[i].limit(), keys[i], rules[i].cost()));
    }
    return calls;
  }

  /** The limit a 503 names: the first whose own policy is closed, else the first on the default policy. */
  public String closedLimit() {
    for (Rule rule : rules) {
      if (rule.spec().failure() == FailurePolicy.CLOSED) {
        return rule.limit();
      }
    }
    for (Rule rule : rules) {
      if (rule.spec().failure() == null) {
        return rule.limit();
      }
    }
    return rules[0].limit();
  }
}

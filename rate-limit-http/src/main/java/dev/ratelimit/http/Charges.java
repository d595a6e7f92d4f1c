package dev.ratelimit.http;

import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.limiter.Decisions;
import dev.ratelimit.limiter.LimitCall;
import dev.ratelimit.limiter.PendingCharge;
import dev.ratelimit.limiter.RateLimiter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What one request is charged: each rule that applies to it with the key it spends from, after
 * the missing-key policy; and spending that, all or nothing, once per request, blocking (a
 * servlet thread) or not (an event loop).
 */
public final class Charges {
  private static final Rule[] NO_RULES = {};
  private static final Charges NONE = new Charges(NO_RULES, new String[0], null);

  /**
   * What a spend ended in: admitted, or denied by {@code limit}, which frees up after the wait;
   * and, for rules with {@code charge-on}, what to settle once the status is known ({@code null}:
   * nothing).
   */
  public record Verdict(boolean allowed, String limit, long retryAfterMillis, Settlement settlement) {
    static final Verdict ADMITTED = new Verdict(true, null, 0, null);
  }

  /**
   * The charges of {@code charge-on} rules, kept or refunded by the response status, once. A
   * rule's refund goes through its {@link PendingCharge} when it was charged alone (exact, also
   * for a shadow limit); with other rules, through {@link RateLimiter#refund}.
   */
  public static final class Settlement {
    private final RateLimiter limiter;
    private final List<Rule> rules = new ArrayList<>();
    private final List<String> keys = new ArrayList<>();
    private final List<PendingCharge> pending = new ArrayList<>();
    private final AtomicBoolean settled = new AtomicBoolean();

    Settlement(RateLimiter limiter) {
      this.limiter = limiter;
    }

    void add(Rule rule, String key, PendingCharge charge) {
      rules.add(rule);
      keys.add(key);
      pending.add(charge);
    }

    /** Keeps each charge whose rule counts this status, refunds the others; only the first call counts. */
    public void settle(int status) {
      if (!settled.compareAndSet(false, true)) {
        return;
      }
      for (int i = 0; i < rules.size(); i++) {
        boolean counts = rules.get(i).chargeOn().counts(status);
        if (pending.get(i) != null) {
          pending.get(i).settle(counts);
        } else if (!counts) {
          limiter.refund(rules.get(i).limit(), keys.get(i), rules.get(i).cost());
        }
      }
    }
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
      Rule rule = rules[0];
      if (rule.chargeOn() == null) {
        return verdict(limiter.limit(rule.limit(), keys[0], rule.cost()), limiter, headers, response);
      }
      PendingCharge charge = limiter.charge(rule.limit(), keys[0], rule.cost());
      Verdict verdict = verdict(charge.decision(), limiter, headers, response);
      if (!verdict.allowed()) {
        return verdict;
      }
      Settlement settlement = new Settlement(limiter);
      settlement.add(rule, keys[0], charge);
      return new Verdict(true, null, 0, settlement);
    }
    Verdict verdict = verdict(limiter.limitAll(calls()), limiter, headers, response);
    if (!verdict.allowed()) {
      return verdict;
    }
    Settlement settlement = null;
    for (int i = 0; i < rules.length; i++) {
      if (rules[i].chargeOn() != null) {
        settlement = settlement != null ? settlement : new Settlement(limiter);
        settlement.add(rules[i], keys[i], null);
      }
    }
    return settlement == null ? verdict : new Verdict(true, null, 0, settlement);
  }

  /**
   * {@link #spend} without blocking: the store's asynchronous call; the headers are set when the
   * decision arrives. It does not settle by status yet: a {@code charge-on} rule's charge is kept
   * whatever the response (the WebFlux filter does not support {@code charge-on}).
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

  /** The one rule's decision, on the response's headers unless its limit is a shadow one. */
  private Verdict verdict(Decision decision, RateLimiter limiter, RateLimitHeaders headers, Response response) {
    if (!rules[0].spec().shadow()) {
      headers.write(response, rules[0], decision, limiter.clock());
    }
    return decision.allowed() ? Verdict.ADMITTED
        : new Verdict(false, rules[0].limit(), decision.retryAfterMillis(), null);
  }

  /** Several rules' decisions, all or nothing, on the response's headers (the enforced ones'). */
  private Verdict verdict(Decisions decisions, RateLimiter limiter, RateLimitHeaders headers, Response response) {
    writeHeaders(limiter, headers, response, decisions);
    return decisions.allowed() ? Verdict.ADMITTED
        : new Verdict(false, rules[decisions.mostRestrictive()].limit(), decisions.retryAfterMillis(), null);
  }

  /** The headers of the enforced rules only: a shadow limit is never shown to clients. */
  private void writeHeaders(RateLimiter limiter, RateLimitHeaders headers, Response response, Decisions decisions) {
    int shown = 0;
    for (Rule rule : rules) {
      shown += rule.spec().shadow() ? 0 : 1;
    }
    if (shown == rules.length) {
      headers.write(response, rules, decisions, limiter.clock());
      return;
    }
    if (shown == 0) {
      return;
    }
    Rule[] enforced = new Rule[shown];
    List<LimitCall> calls = new ArrayList<>(shown);
    List<Decision> own = new ArrayList<>(shown);
    for (int i = 0, at = 0; i < rules.length; i++) {
      if (!rules[i].spec().shadow()) {
        enforced[at++] = rules[i];
        calls.add(decisions.calls().get(i));
        own.add(decisions.decisions().get(i));
      }
    }
    headers.write(response, enforced, new Decisions(calls, own), limiter.clock());
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

package dev.ratelimit.servlet;

import dev.ratelimit.Decision;
import dev.ratelimit.Decisions;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.LimitCall;
import dev.ratelimit.PendingCharge;
import dev.ratelimit.RateLimiter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * What one request is charged: each rule that applies to it with the key it spends from, after
 * the missing-key policy; and spending that, all or nothing.
 */
final class Charges {
  private static final Rule[] NO_RULES = {};
  private static final Charges NONE = new Charges(NO_RULES, new String[0], null);

  /**
   * What a spend ended in: admitted, or denied by {@code limit}, which frees up after the wait;
   * and, for rules with {@code charge-on}, what to settle once the status is known ({@code null}:
   * nothing).
   */
  record Verdict(boolean allowed, String limit, long retryAfterMillis, Settlement settlement) {
    static final Verdict ADMITTED = new Verdict(true, null, 0, null);
  }

  /**
   * The charges of {@code charge-on} rules, kept or refunded by the response status, once. A
   * rule's refund goes through its {@link PendingCharge} when it was charged alone (exact, also
   * for a shadow limit); with other rules, through {@link RateLimiter#refund}.
   */
  static final class Settlement {
    private final RateLimiter limiter;
    private final List<Rule> rules = new ArrayList<>();
    private final List<String> keys = new ArrayList<>();
    private final List<PendingCharge> pending = new ArrayList<>();
    private final java.util.concurrent.atomic.AtomicBoolean settled = new java.util.concurrent.atomic.AtomicBoolean();

    Settlement(RateLimiter limiter) {
      this.limiter = limiter;
    }

    void add(Rule rule, String key, PendingCharge charge) {
      rules.add(rule);
      keys.add(key);
      pending.add(charge);
    }

    /** Keeps each charge whose rule counts this status, refunds the others; only the first call counts. */
    void settle(int status) {
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
  private final Rejection missingKey;

  private Charges(Rule[] rules, String[] keys, Rejection missingKey) {
    this.rules = rules;
    this.keys = keys;
    this.missingKey = missingKey;
  }

  /**
   * The matched rules with their keys, bounded for the store. Under {@code skip} a rule without
   * a key drops out; under {@code deny} the result is only the {@link #missingKey()} refusal.
   */
  static Charges of(Rule[] matched, HttpServletRequest request, MissingKey policy) {
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
            return new Charges(NO_RULES, keys, Rejection.missingKey(matched[i].limit(), matched[i].keyName()));
          }
        }
      }
      keys[i] = BuiltInKeys.bounded(key);
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
  Rejection missingKey() {
    return missingKey;
  }

  /** Nothing to spend: no rule matched, or every one that did was skipped. */
  boolean isEmpty() {
    return rules.length == 0;
  }

  /**
   * Spends every charge or none, and sets the rate limit headers of the decision.
   *
   * @throws dev.ratelimit.StoreUnavailableException when the store is down and a limit's policy is closed
   */
  Verdict spend(RateLimiter limiter, Headers headers, HttpServletResponse response) {
    if (rules.length == 1) {
      // the usual case, without the all-or-nothing call's lists
      Rule rule = rules[0];
      Settlement settlement = null;
      Decision decision;
      if (rule.chargeOn() == null) {
        decision = limiter.limit(rule.limit(), keys[0], rule.cost());
      } else {
        PendingCharge charge = limiter.charge(rule.limit(), keys[0], rule.cost());
        decision = charge.decision();
        settlement = new Settlement(limiter);
        settlement.add(rule, keys[0], charge);
      }
      if (!rule.spec().shadow()) {
        headers.write(response, rule, decision, limiter.clock());
      }
      return decision.allowed() ? new Verdict(true, null, 0, settlement)
          : new Verdict(false, rule.limit(), decision.retryAfterMillis(), null);
    }
    Decisions decisions = limiter.limitAll(calls());
    writeHeaders(limiter, headers, response, decisions);
    if (!decisions.allowed()) {
      return new Verdict(false, rules[decisions.mostRestrictive()].limit(), decisions.retryAfterMillis(), null);
    }
    Settlement settlement = null;
    for (int i = 0; i < rules.length; i++) {
      if (rules[i].chargeOn() != null) {
        settlement = settlement != null ? settlement : new Settlement(limiter);
        settlement.add(rules[i], keys[i], null);
      }
    }
    return settlement == null ? Verdict.ADMITTED : new Verdict(true, null, 0, settlement);
  }

  /** The headers of the enforced rules only: a shadow limit is never shown to clients. */
  private void writeHeaders(RateLimiter limiter, Headers headers, HttpServletResponse response, Decisions decisions) {
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
  String closedLimit() {
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

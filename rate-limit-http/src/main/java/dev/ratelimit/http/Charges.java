package dev.ratelimit.http;

import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.http.builder.MissingKey;
import dev.ratelimit.limiter.Decisions;
import dev.ratelimit.limiter.NamedLimiter;
import dev.ratelimit.limiter.PendingCharge;
import dev.ratelimit.limiter.RateLimiter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * What one request is charged: each rule that applies to it (its condition holds) with the key it
 * spends from, after the missing-key policy, and the plan it is charged under; and spending that,
 * all or nothing, once per request, blocking (a servlet thread) or not (an event loop).
 */
public final class Charges {
  private static final System.Logger LOG = System.getLogger(Charges.class.getName());
  private static final Rule[] NO_RULES = {};
  private static final Charges NONE = new Charges(NO_RULES, new String[0], new String[0], null);
  /** {@code NO_PLANS[n]}: n nulls, the plans of n rules none of which has a plan; read only. */
  private static final String[][] NO_PLANS = new String[8][];

  static {
    for (int n = 0; n < NO_PLANS.length; n++) {
      NO_PLANS[n] = new String[n];
    }
  }

  /**
   * What a spend ended in: admitted, or denied by {@code limit}, which frees up after the wait;
   * and, for rules with {@code charge-on} or {@code cost-header}, what to settle once the
   * response is known ({@code null}: nothing).
   */
  public record Verdict(boolean allowed, String limit, long retryAfterMillis, Settlement settlement) {
    static final Verdict ADMITTED = new Verdict(true, null, 0, null);
  }

  /**
   * The charges of the rules settled after the response ({@code charge-on}, {@code cost-header}),
   * once: by the response status and the cost the application stated, or, for a request whose
   * client went away without a status, by whether its handler had started (docs/design.md §2.7,
   * what cancelling costs). Each charge ends at a count: 0 (refunded: a status its rule does not
   * count, or a request that never ran), the cost header's value (settled: the difference given
   * back or taken, into debt), or the rule's cost (kept as made), through its
   * {@link PendingCharge}, which gives back only what was taken; on a front end that must not
   * block, asynchronously. A settlement the store fails leaves the charge as made.
   */
  public static final class Settlement {
    /** Charged; the handler has not started. */
    private static final int WAITING = 0;
    /** The handler started: the work is under way, so a cancel keeps the charges. */
    private static final int STARTED = 1;
    /** Settled; nothing more to do. */
    private static final int SETTLED = 2;
    /** A response without any cost header. */
    private static final Function<String, List<String>> NOTHING_STATED = name -> List.of();

    private final boolean async;
    private final List<Rule> rules = new ArrayList<>();
    private final List<PendingCharge> pending = new ArrayList<>();
    private final AtomicInteger state = new AtomicInteger(WAITING);

    Settlement(boolean async) {
      this.async = async;
    }

    void add(Rule rule, PendingCharge charge) {
      rules.add(rule);
      pending.add(charge);
    }

    /**
     * The front end is about to run the handler (enter the chain, subscribe to it, send to the
     * backend). From now on a client that goes away is charged, unless the rule refunds
     * cancelled requests.
     *
     * @return false when the request was cancelled (and refunded) first: the handler must not run
     */
    public boolean start() {
      return state.compareAndSet(WAITING, STARTED);
    }

    /** The cost headers the response may carry, one per rule that has one; empty when none. */
    public List<CostHeader> costHeaders() {
      List<CostHeader> headers = new ArrayList<>(1);
      for (Rule rule : rules) {
        if (rule.costHeader() != null) {
          headers.add(rule.costHeader());
        }
      }
      return headers;
    }

    /** {@link #settle(int, Function)} for a response that states no cost. */
    public void settle(int status) {
      settle(status, NOTHING_STATED);
    }

    /**
     * Settles each charge by the response: refunded when its rule does not count this status,
     * else settled with the cost its rule's cost header states, else kept. Only the first settle
     * or cancel counts.
     *
     * @param header the values of a response header as the application set them (empty: none)
     */
    public void settle(int status, Function<String, List<String>> header) {
      if (state.getAndSet(SETTLED) == SETTLED) {
        return;
      }
      for (int i = 0; i < rules.size(); i++) {
        Rule rule = rules.get(i);
        if (rule.chargeOn() != null && !rule.chargeOn().counts(status)) {
          settle(i, 0);
        } else if (rule.costHeader() != null) {
          double stated = rule.costHeader().cost(header.apply(rule.costHeader().name()), rule);
          settle(i, stated >= 0 ? stated : rule.cost());
        }
        // else kept as charged: nothing to do but close a pending charge, which nothing reads again
      }
    }

    /** {@link #cancel(Function)} for a request whose response stated no cost. */
    public void cancel() {
      cancel(NOTHING_STATED);
    }

    /**
     * The client went away before the response was complete, so there may be no status. Before
     * the handler started nothing ran: every charge is refunded. After, the work ran or is
     * running: each charge is kept, at the cost the response stated if it got so far (a response
     * committed before the client left), unless its rule refunds cancelled requests. Once, as
     * {@link #settle}.
     *
     * @param header the values of a response header as the application set them (empty: none)
     */
    public void cancel(Function<String, List<String>> header) {
      int was = state.getAndSet(SETTLED);
      if (was == SETTLED) {
        return;
      }
      for (int i = 0; i < rules.size(); i++) {
        Rule rule = rules.get(i);
        if (was == WAITING || rule.refundCancelled()) {
          settle(i, 0);
        } else if (rule.costHeader() != null) {
          List<String> values = header.apply(rule.costHeader().name());
          // no value: the cost is unknown, which is no fault of the application's
          double stated = values.isEmpty() ? -1 : rule.costHeader().cost(values, rule);
          settle(i, stated >= 0 ? stated : rule.cost());
        }
      }
    }

    /** Ends charge {@code i} at {@code count} units: the difference with its rule's cost given back or taken. */
    private void settle(int i, double count) {
      Rule rule = rules.get(i);
      PendingCharge charge = pending.get(i);
      try {
        if (async) {
          charge.settleActualAsync(count).exceptionally(failure -> settleFailed(rule, failure));
        } else {
          charge.settleActual(count);
        }
      } catch (RuntimeException e) {
        settleFailed(rule, e);
      }
    }

    /** A settlement the store could not take: the charge stays as made; the request was answered long ago. */
    private static Decision settleFailed(Rule rule, Throwable failure) {
      LOG.log(System.Logger.Level.DEBUG, "settlement of limit '" + rule.limit() + "' failed; the charge stays as made",
          failure);
      return null;
    }
  }

  private final Rule[] rules;
  private final String[] keys;
  /** Each rule's plan, {@code null} for the default plan. */
  private final String[] plans;
  private final Problem missingKey;

  private Charges(Rule[] rules, String[] keys, String[] plans, Problem missingKey) {
    this.rules = rules;
    this.keys = keys;
    this.plans = plans;
    this.missingKey = missingKey;
  }

  /**
   * The matched rules whose condition holds, with their keys (as resolved: the limiter bounds
   * every key it is given, once, before any store sees it) and their plans. Under {@code skip} a rule without a key drops out; under {@code deny} the result is
   * only the {@link #missingKey()} refusal.
   */
  public static Charges of(Rule[] matched, Request request, MissingKey policy) {
    if (matched.length == 0) {
      return NONE;
    }
    String[] keys = new String[matched.length];
    String[] plans = null;
    int applied = 0;
    for (int i = 0; i < matched.length; i++) {
      Rule rule = matched[i];
      if (rule.condition() != null && !rule.condition().applies(request)) {
        continue; // not this request's rule: no key asked for, nothing charged
      }
      String key = rule.key().resolve(request);
      if (key == null) {
        switch (policy) {
          case GLOBAL -> key = "";
          case SKIP -> {
            continue;
          }
          case DENY -> {
            return new Charges(NO_RULES, keys, keys, Problem.missingKey(rule.limit(), rule.keyName()));
          }
        }
      }
      keys[i] = key;
      if (rule.plan() != null) {
        plans = plans != null ? plans : new String[matched.length];
        plans[i] = rule.plan().plan(request);
      }
      applied++;
    }
    plans = plans != null ? plans : noPlans(matched.length);
    if (applied == matched.length) {
      return new Charges(matched, keys, plans, null);
    }
    // rules that don't apply, or whose key was missing under "skip", drop out (matched is shared:
    // copy, never write to it)
    Rule[] rules = new Rule[applied];
    String[] present = new String[applied];
    String[] planned = new String[applied];
    for (int i = 0, at = 0; i < matched.length; i++) {
      if (keys[i] != null) {
        rules[at] = matched[i];
        planned[at] = plans[i];
        present[at++] = keys[i];
      }
    }
    return new Charges(rules, present, planned, null);
  }

  /** Every rule on its default plan: an array of nulls, shared for the usual few rules (never written to). */
  private static String[] noPlans(int rules) {
    return rules < NO_PLANS.length ? NO_PLANS[rules] : new String[rules];
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
      if (!rule.settlesAfterResponse()) {
        Decision decision = limiter.named(rule.limit()).onPlan(plans[0]).limit(keys[0], rule.cost());
        return verdict(decision, limiter, headers, response);
      }
      PendingCharge charge = limiter.named(rule.limit()).onPlan(plans[0]).charge(keys[0], rule.cost());
      Verdict verdict = verdict(charge.decision(), limiter, headers, response);
      if (!verdict.allowed()) {
        return verdict;
      }
      Settlement settlement = new Settlement(false);
      settlement.add(rule, charge);
      return new Verdict(true, null, 0, settlement);
    }
    List<NamedLimiter.Call> calls = calls(limiter);
    if (!settlesAfterResponse()) {
      return verdict(limiter.limitAll(calls), limiter, headers, response);
    }
    List<PendingCharge> charges = limiter.chargeAll(calls);
    return settling(verdict(decisions(calls, charges), limiter, headers, response), charges, false);
  }

  /**
   * {@link #spend} without blocking: the store's asynchronous call; the headers are set when the
   * decision arrives. The charges of {@code charge-on} and {@code cost-header} rules come with a
   * {@link Settlement} whose settlements are asynchronous too.
   *
   * @return a stage failing with {@link dev.ratelimit.StoreUnavailableException} (perhaps in a
   *     {@link java.util.concurrent.CompletionException}) when a closed limit can't be decided
   */
  public CompletionStage<Verdict> spendAsync(RateLimiter limiter, RateLimitHeaders headers, Response response) {
    if (rules.length == 1 && rules[0].settlesAfterResponse()) {
      Rule rule = rules[0];
      return limiter.named(rule.limit()).onPlan(plans[0]).chargeAsync(keys[0], rule.cost()).thenApply(charge -> {
        Verdict verdict = verdict(charge.decision(), limiter, headers, response);
        if (!verdict.allowed()) {
          return verdict;
        }
        Settlement settlement = new Settlement(true);
        settlement.add(rule, charge);
        return new Verdict(true, null, 0, settlement);
      });
    }
    if (rules.length == 1) {
      CompletionStage<Decision> decision =
          limiter.named(rules[0].limit()).onPlan(plans[0]).limitAsync(keys[0], rules[0].cost());
      return decision.thenApply(d -> verdict(d, limiter, headers, response));
    }
    List<NamedLimiter.Call> calls = calls(limiter);
    if (!settlesAfterResponse()) {
      return limiter.limitAllAsync(calls).thenApply(decisions -> verdict(decisions, limiter, headers, response));
    }
    return limiter.chargeAllAsync(calls).thenApply(charges ->
        settling(verdict(decisions(calls, charges), limiter, headers, response), charges, true));
  }

  /** Whether any rule is settled once the response is known ({@code charge-on}, {@code cost-header}). */
  private boolean settlesAfterResponse() {
    for (Rule rule : rules) {
      if (rule.settlesAfterResponse()) {
        return true;
      }
    }
    return false;
  }

  private static Decisions decisions(List<NamedLimiter.Call> calls, List<PendingCharge> charges) {
    List<Decision> decided = new ArrayList<>(charges.size());
    for (PendingCharge charge : charges) {
      decided.add(charge.decision());
    }
    return new Decisions(calls, decided);
  }

  /** An admission with the settlement of the rules settled after the response, each through its charge. */
  private Verdict settling(Verdict verdict, List<PendingCharge> charges, boolean async) {
    if (!verdict.allowed()) {
      return verdict;
    }
    Settlement settlement = new Settlement(async);
    for (int i = 0; i < rules.length; i++) {
      if (rules[i].settlesAfterResponse()) {
        settlement.add(rules[i], charges.get(i));
      }
    }
    return new Verdict(true, null, 0, settlement);
  }

  /** The one rule's decision, on the response's headers unless its limit is a shadow one. */
  private Verdict verdict(Decision decision, RateLimiter limiter, RateLimitHeaders headers, Response response) {
    Rule rule = rules[0];
    if (!rule.spec().shadow()) {
      headers.write(response, rule.limit(), rule.policy(plans[0]), decision, limiter.clock());
    }
    return decision.allowed() ? Verdict.ADMITTED
        : new Verdict(false, rule.limit(), decision.retryAfterMillis(), null);
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
    if (shown == 0) {
      return;
    }
    String[] names = new String[shown];
    String[] policies = new String[shown];
    List<NamedLimiter.Call> calls = new ArrayList<>(shown);
    List<Decision> own = new ArrayList<>(shown);
    for (int i = 0, at = 0; i < rules.length; i++) {
      if (!rules[i].spec().shadow()) {
        names[at] = rules[i].limit();
        policies[at++] = rules[i].policy(plans[i]);
        calls.add(decisions.calls().get(i));
        own.add(decisions.decisions().get(i));
      }
    }
    headers.write(response, names, policies,
        shown == rules.length ? decisions : new Decisions(calls, own), limiter.clock());
  }

  private List<NamedLimiter.Call> calls(RateLimiter limiter) {
    List<NamedLimiter.Call> calls = new ArrayList<>(rules.length);
    for (int i = 0; i < rules.length; i++) {
      calls.add(limiter.named(rules[i].limit()).onPlan(plans[i]).call(keys[i], rules[i].cost()));
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

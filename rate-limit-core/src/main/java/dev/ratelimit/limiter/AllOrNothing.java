package dev.ratelimit.limiter;

import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.store.RateLimitStore.Charge;
import java.util.ArrayList;
import java.util.List;

/**
 * An all-or-nothing call planned: the store charges of its calls (a sharded limit has several per
 * call), how they map back to each call, and its shadow parts, if any.
 */
record AllOrNothing(List<NamedLimiter.Call> calls, List<BoundLimit> bounds, List<Integer> sizes, List<Charge> charges,
    ShadowParts shadows) {
  /** The charges on each limit's guarded space: decided by its failure policy while the store is down. */
  List<Charge> guarded() {
    List<Charge> guarded = new ArrayList<>(charges.size());
    int at = 0;
    for (int i = 0; i < bounds.size(); i++) {
      for (int j = 0; j < sizes.get(i); j++, at++) {
        Charge charge = charges.get(at);
        guarded.add(new Charge(bounds.get(i).space, charge.key(), charge.count()));
      }
    }
    return guarded;
  }

  /**
   * Each call's decision counted in its limit's top keys, when tracked, and told to the listener
   * when there is one ({@code report}): once per call.
   */
  Decisions reported(Decisions decisions, Report report) {
    for (int i = 0; i < bounds.size(); i++) {
      bounds.get(i).noted(calls.get(i), decisions.decisions().get(i));
      if (report != null) {
        bounds.get(i).finish(calls.get(i).key(), decisions.decisions().get(i), report);
      }
    }
    return decisions;
  }

  /**
   * Each call's charge, to be settled later: its units taken when the call was admitted as a
   * whole and not by the {@code open} policy while the store was down ({@code report} says).
   */
  List<PendingCharge> pending(Decisions decisions, Report report) {
    List<PendingCharge> pending = new ArrayList<>(calls.size());
    for (int i = 0; i < calls.size(); i++) {
      BoundLimit bound = bounds.get(i);
      boolean taken = decisions.allowed() && report.fallback(bound.policy()) != FailurePolicy.OPEN;
      pending.add(new PendingCharge(bound, RateLimiter.key(calls.get(i).key()), calls.get(i).count(),
          decisions.decisions().get(i), taken));
    }
    return pending;
  }

  Decisions decisions(List<Decision> perCharge) {
    List<Decision> perCall = new ArrayList<>(calls.size());
    int at = 0;
    for (int i = 0; i < calls.size(); i++) {
      perCall.add(bounds.get(i).combine(perCharge.subList(at, at + sizes.get(i))));
      at += sizes.get(i);
    }
    return new Decisions(calls, perCall);
  }
}

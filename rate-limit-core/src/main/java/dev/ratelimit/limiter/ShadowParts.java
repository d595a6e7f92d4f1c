package dev.ratelimit.limiter;

import dev.ratelimit.Decision;
import dev.ratelimit.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * An all-or-nothing call with shadow limits among its parts: they must never deny the others,
 * so the enforced parts are decided all or nothing first, then each shadow part on its own, as
 * if enforced: charged when the enforced parts admitted, only checked when they denied (an
 * enforced all-or-nothing call would have charged none).
 */
record ShadowParts(List<NamedLimiter.Call> calls, List<BoundLimit> bounds) {
  List<NamedLimiter.Call> enforced() {
    List<NamedLimiter.Call> enforced = new ArrayList<>(calls.size());
    for (int i = 0; i < calls.size(); i++) {
      if (!bounds.get(i).shadow) {
        enforced.add(calls.get(i));
      }
    }
    return enforced;
  }

  Decisions decide(Decisions enforced) {
    Operation op = enforced.allowed() ? Operation.LIMIT : Operation.CHECK;
    List<Decision> all = new ArrayList<>(calls.size());
    int at = 0;
    for (int i = 0; i < calls.size(); i++) {
      NamedLimiter.Call call = calls.get(i);
      all.add(bounds.get(i).shadow
          ? bounds.get(i).apply(RateLimiter.key(call.key()), op, call.count(), 0)
          : enforced.decisions().get(at++));
    }
    return new Decisions(calls, all);
  }

  CompletionStage<Decisions> decideAsync(Decisions enforced) {
    Operation op = enforced.allowed() ? Operation.LIMIT : Operation.CHECK;
    CompletionStage<List<Decision>> all = CompletableFuture.completedFuture(new ArrayList<>(calls.size()));
    int at = 0;
    for (int i = 0; i < calls.size(); i++) {
      NamedLimiter.Call call = calls.get(i);
      BoundLimit bound = bounds.get(i);
      if (bound.shadow) {
        all = all.thenCompose(list -> bound.applyAsync(RateLimiter.key(call.key()), op, call.count(), 0)
            .thenApply(decision -> add(list, decision)));
      } else {
        Decision decision = enforced.decisions().get(at++);
        all = all.thenApply(list -> add(list, decision));
      }
    }
    return all.thenApply(list -> new Decisions(calls, list));
  }

  /**
   * {@link #decide} for {@link RateLimiter#chargeAll}: each shadow part charged on its own when
   * the enforced parts were admitted (its charge knows whether a would-be denial took anything),
   * else only checked, taking nothing.
   */
  List<PendingCharge> charge(List<PendingCharge> enforced) {
    boolean admitted = enforced.stream().allMatch(PendingCharge::allowed);
    List<PendingCharge> all = new ArrayList<>(calls.size());
    int at = 0;
    for (int i = 0; i < calls.size(); i++) {
      NamedLimiter.Call call = calls.get(i);
      BoundLimit bound = bounds.get(i);
      String key = RateLimiter.key(call.key());
      if (!bound.shadow) {
        all.add(enforced.get(at++));
      } else if (admitted) {
        all.add(bound.charge(key, call.count()));
      } else {
        all.add(new PendingCharge(bound, key, call.count(), bound.apply(key, Operation.CHECK, call.count(), 0), false));
      }
    }
    return all;
  }

  /** {@link #charge} without blocking. */
  CompletionStage<List<PendingCharge>> chargeAsync(List<PendingCharge> enforced) {
    boolean admitted = enforced.stream().allMatch(PendingCharge::allowed);
    CompletionStage<List<PendingCharge>> all = CompletableFuture.completedFuture(new ArrayList<>(calls.size()));
    int at = 0;
    for (int i = 0; i < calls.size(); i++) {
      NamedLimiter.Call call = calls.get(i);
      BoundLimit bound = bounds.get(i);
      String key = RateLimiter.key(call.key());
      if (!bound.shadow) {
        PendingCharge charge = enforced.get(at++);
        all = all.thenApply(list -> add(list, charge));
      } else if (admitted) {
        all = all.thenCompose(list -> bound.chargeAsync(key, call.count()).thenApply(charge -> add(list, charge)));
      } else {
        all = all.thenCompose(list -> bound.applyAsync(key, Operation.CHECK, call.count(), 0)
            .thenApply(decision -> add(list, new PendingCharge(bound, key, call.count(), decision, false))));
      }
    }
    return all;
  }

  private static <T> List<T> add(List<T> list, T item) {
    list.add(item);
    return list;
  }
}

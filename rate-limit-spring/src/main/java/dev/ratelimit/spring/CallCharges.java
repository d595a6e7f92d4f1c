package dev.ratelimit.spring;

import dev.ratelimit.Decision;
import dev.ratelimit.limiter.Decisions;
import dev.ratelimit.limiter.NamedLimiter;
import dev.ratelimit.limiter.PendingCharge;
import dev.ratelimit.limiter.RateLimiter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The charges of one call whose annotations settle them once it is over ({@code chargeIf},
 * {@code actual}): taken up front, all or nothing ({@link RateLimiter#chargeAll}), then each
 * settled through its {@link PendingCharge} at the count the call ends at (0: refunded; its count:
 * kept; another: the difference given back or taken, even into debt, docs/design.md §2.7). The
 * call already ran: a settlement the store fails leaves the charge as made, logged at DEBUG, and
 * never fails the call.
 */
final class CallCharges {
  private static final System.Logger LOG = System.getLogger(RateLimitedAspect.class.getName());

  private final List<PendingCharge> charges;
  private final Decisions decisions;

  private CallCharges(List<NamedLimiter.Call> calls, List<PendingCharge> charges) {
    this.charges = charges;
    List<Decision> decided = new ArrayList<>(charges.size());
    for (PendingCharge charge : charges) {
      decided.add(charge.decision());
    }
    this.decisions = new Decisions(calls, decided);
  }

  /** Charges every call or none, blocking. */
  static CallCharges charge(RateLimiter limiter, List<NamedLimiter.Call> calls) {
    if (calls.size() == 1) {
      NamedLimiter.Call only = calls.get(0);
      return new CallCharges(calls, List.of(only.named().charge(only.key(), only.count())));
    }
    return new CallCharges(calls, limiter.chargeAll(calls));
  }

  /**
   * Charges every call or none, without blocking; fails with {@link RateLimitBusyException} when
   * the store refused to queue the decision.
   */
  static CompletionStage<CallCharges> chargeAsync(RateLimiter limiter, List<NamedLimiter.Call> calls) {
    CompletionStage<List<PendingCharge>> charged;
    if (calls.size() == 1) {
      NamedLimiter.Call only = calls.get(0);
      charged = only.named().chargeAsync(only.key(), only.count()).thenApply(List::of);
    } else {
      charged = limiter.chargeAllAsync(calls);
    }
    return RateLimitedAspect.busyNamed(charged, calls).thenApply(charges -> new CallCharges(calls, charges));
  }

  Decisions decisions() {
    return decisions;
  }

  boolean allowed() {
    return decisions.allowed();
  }

  /** Settles each charge at its count ({@code counts[i]} for call {@code i}), blocking; once. */
  void settle(double[] counts) {
    for (int i = 0; i < charges.size(); i++) {
      try {
        charges.get(i).settleActual(counts[i]);
      } catch (RuntimeException e) {
        failed(decisions.calls().get(i), e);
      }
    }
  }

  /**
   * {@link #settle} without blocking: completes when the store has taken every settlement, or
   * failed it (then logged); never fails.
   */
  CompletionStage<Void> settleAsync(double[] counts) {
    CompletableFuture<?>[] settled = new CompletableFuture<?>[charges.size()];
    for (int i = 0; i < charges.size(); i++) {
      NamedLimiter.Call call = decisions.calls().get(i);
      CompletionStage<Decision> settling;
      try {
        settling = charges.get(i).settleActualAsync(counts[i]);
      } catch (RuntimeException e) {
        settling = CompletableFuture.failedFuture(e);
      }
      settled[i] = settling.toCompletableFuture().exceptionally(failure -> {
        failed(call, failure);
        return null;
      });
    }
    return CompletableFuture.allOf(settled);
  }

  private static void failed(NamedLimiter.Call call, Throwable failure) {
    LOG.log(System.Logger.Level.DEBUG, "settlement of limit '" + call.limit() + "' failed; the charge stays as made",
        failure);
  }
}

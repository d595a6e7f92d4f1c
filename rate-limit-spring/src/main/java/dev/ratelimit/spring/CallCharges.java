package dev.ratelimit.spring;

import dev.ratelimit.Decision;
import dev.ratelimit.limiter.Decisions;
import dev.ratelimit.limiter.NamedLimiter;
import dev.ratelimit.limiter.PendingCharge;
import dev.ratelimit.limiter.RateLimiter;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The charges of one call whose annotations settle them once it is over ({@code chargeIf},
 * {@code actual}): taken up front, all or nothing, then each settled at the count the call ends
 * at (0: refunded; its count: kept; another: the difference given back or taken, even into debt,
 * docs/design.md §2.7). One limit is charged and settled through its {@link PendingCharge} (exact,
 * also for a shadow limit); several through {@link RateLimiter#limitAll}, then
 * {@link NamedLimiter#refund} and {@link NamedLimiter#take}. The call already ran: a settlement the
 * store fails leaves the charge as made, logged at DEBUG, and never fails the call.
 */
final class CallCharges {
  private static final System.Logger LOG = System.getLogger(RateLimitedAspect.class.getName());

  private final RateLimiter limiter;
  private final List<NamedLimiter.Call> calls;
  /** The one limit's charge; null for several, charged all or nothing. */
  private final PendingCharge single;
  private final Decisions decisions;

  private CallCharges(RateLimiter limiter, List<NamedLimiter.Call> calls, PendingCharge single, Decisions decisions) {
    this.limiter = limiter;
    this.calls = calls;
    this.single = single;
    this.decisions = decisions;
  }

  /** Charges every call or none, blocking. */
  static CallCharges charge(RateLimiter limiter, List<NamedLimiter.Call> calls) {
    if (calls.size() == 1) {
      NamedLimiter.Call only = calls.get(0);
      PendingCharge charge = only.named().charge(only.key(), only.count());
      return new CallCharges(limiter, calls, charge, single(only, charge.decision()));
    }
    return new CallCharges(limiter, calls, null, limiter.limitAll(calls));
  }

  /**
   * Charges every call or none, without blocking; fails with {@link RateLimitBusyException} when
   * the store refused to queue the decision.
   */
  static CompletionStage<CallCharges> chargeAsync(RateLimiter limiter, List<NamedLimiter.Call> calls) {
    if (calls.size() == 1) {
      NamedLimiter.Call only = calls.get(0);
      return RateLimitedAspect.busyNamed(only.named().chargeAsync(only.key(), only.count()), calls)
          .thenApply(charge -> new CallCharges(limiter, calls, charge, single(only, charge.decision())));
    }
    return RateLimitedAspect.busyNamed(limiter.limitAllAsync(calls), calls)
        .thenApply(decisions -> new CallCharges(limiter, calls, null, decisions));
  }

  private static Decisions single(NamedLimiter.Call call, Decision decision) {
    return new Decisions(List.of(call), List.of(decision));
  }

  Decisions decisions() {
    return decisions;
  }

  boolean allowed() {
    return decisions.allowed();
  }

  /** Settles each charge at its count ({@code counts[i]} for call {@code i}), blocking; once. */
  void settle(double[] counts) {
    for (int i = 0; i < calls.size(); i++) {
      NamedLimiter.Call call = calls.get(i);
      try {
        if (single != null) {
          single.settleActual(counts[i]);
        } else if (counts[i] > call.count()) {
          call.named().take(call.key(), counts[i] - call.count());
        } else if (counts[i] < call.count()) {
          call.named().refund(call.key(), call.count() - counts[i]);
        }
      } catch (RuntimeException e) {
        failed(call, e);
      }
    }
  }

  /**
   * {@link #settle} without blocking: completes when the store has taken every settlement, or
   * failed it (then logged); never fails.
   */
  CompletionStage<Void> settleAsync(double[] counts) {
    CompletableFuture<?>[] settled = new CompletableFuture<?>[calls.size()];
    for (int i = 0; i < calls.size(); i++) {
      NamedLimiter.Call call = calls.get(i);
      CompletionStage<Decision> settling;
      try {
        if (single != null) {
          settling = single.settleActualAsync(counts[i]);
        } else if (counts[i] > call.count()) {
          settling = call.named().takeAsync(call.key(), counts[i] - call.count());
        } else if (counts[i] < call.count()) {
          settling = call.named().refundAsync(call.key(), call.count() - counts[i]);
        } else {
          settling = CompletableFuture.completedFuture(null);
        }
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

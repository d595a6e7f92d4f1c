package dev.ratelimit.limiter;

import dev.ratelimit.Decision;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Units taken up front by {@link NamedLimiter#charge}, settled once the outcome is known: charging
 * first means concurrent calls can never overshoot the limit. Two ways to settle, once:
 *
 * <ul>
 *   <li>by whether the outcome counts ({@link #settle}): kept, or given back (failed logins,
 *       4xx responses);
 *   <li>by what the call really cost ({@link #settleActual}): the charge was an estimate, and
 *       the difference is given back or taken, even into debt (an LLM call's tokens, known when
 *       the model has answered).
 * </ul>
 *
 * <pre>{@code
 * PendingCharge charge = limiter.charge("failed-logins", username, 1);
 * if (!charge.allowed()) throw new RateLimitExceededException("failed-logins", charge.decision());
 * boolean ok = authenticate(username, password);
 * charge.settle(!ok);                         // a success gives its unit back
 *
 * PendingCharge tokens = limiter.charge("llm-tokens", userId, 1_000);   // the estimate
 * if (!tokens.allowed()) throw new RateLimitExceededException("llm-tokens", tokens.decision());
 * Answer answer = model.call(prompt);
 * tokens.settleActual(answer.totalTokens());  // what it cost, above or below the estimate
 * }</pre>
 *
 * <p>Settles once: later calls do nothing. A denied charge took nothing and settles to nothing;
 * so does an admission by a shadow limit's would-be denial or by the {@code open} failure policy.
 * A settlement is not a decision: the {@code DecisionListener} does not hear it.
 *
 * @since 1.0
 */
public final class PendingCharge {
  private final BoundLimit bound;
  private final String key;
  private final double count;
  private final Decision decision;
  private final AtomicBoolean open;

  PendingCharge(BoundLimit bound, String key, double count, Decision decision, boolean taken) {
    this.bound = bound;
    this.key = key;
    this.count = count;
    this.decision = decision;
    this.open = new AtomicBoolean(taken);
  }

  /** The decision as the caller gets it (a shadow limit's is always allowed). */
  public Decision decision() {
    return decision;
  }

  public boolean allowed() {
    return decision.allowed();
  }

  /** Keeps the units if the outcome {@code counts}, else gives them back; once. */
  public void settle(boolean counts) {
    if (open.compareAndSet(true, false) && !counts) {
      bound.refund(key, count);
    }
  }

  /** {@code settle(false)}: the outcome does not count. */
  public void refund() {
    settle(false);
  }

  /**
   * Settles the charge with what the call really cost: below the units charged, the difference
   * is given back (never above the capacity, as a refund); above, the difference is taken
   * whatever the key holds, into debt, so that later calls wait: up to one capacity of debt (or
   * {@code maxReserved}, when finite and deeper), beyond which the rest is not charged
   * (docs/design.md §2.7). Once, as {@link #settle}.
   *
   * @param actualCount the units the call used, a finite number, 0 or more
   * @return the key's state after the settlement, as a check for 0 units ({@code remaining}
   *     negative and not allowed while the key is in debt); the charge's own {@link #decision()}
   *     when nothing moved (the actual count is the charge's, the charge took nothing, or it was
   *     settled before)
   * @throws IllegalArgumentException for a count that is negative, NaN or infinite, naming the
   *     limit; nothing changes and the charge stays open
   * @throws dev.ratelimit.StoreUnavailableException when the store can't take the settlement
   *     (as a refund, under the {@code local} policy the local store takes it); the charge is
   *     settled all the same, at its estimate
   */
  public Decision settleActual(double actualCount) {
    bound.checkAmount("actual", actualCount);
    if (!open.compareAndSet(true, false)) {
      return decision;
    }
    double excess = actualCount - count;
    return excess > 0 ? bound.take(key, excess) : excess < 0 ? bound.refund(key, -excess) : decision;
  }

  /**
   * {@link #settleActual} without blocking, for callers on an event loop: the stage completes
   * with the same decision, or fails as the store does (the charge is settled all the same).
   *
   * @throws IllegalArgumentException at once, for a count that is negative, NaN or infinite;
   *     nothing changes and the charge stays open
   */
  public CompletionStage<Decision> settleActualAsync(double actualCount) {
    bound.checkAmount("actual", actualCount);
    if (!open.compareAndSet(true, false)) {
      return CompletableFuture.completedFuture(decision);
    }
    double excess = actualCount - count;
    return excess > 0 ? bound.takeAsync(key, excess)
        : excess < 0 ? bound.refundAsync(key, -excess) : CompletableFuture.completedFuture(decision);
  }
}

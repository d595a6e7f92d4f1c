package dev.ratelimit.limiter;

import dev.ratelimit.Decision;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Units taken up front by {@link RateLimiter#charge}, to be kept or given back once the outcome
 * is known: charging first means concurrent calls can never overshoot the limit, refunding
 * afterwards means only the outcomes that count use it up (failed logins, 4xx responses).
 *
 * <pre>{@code
 * PendingCharge charge = limiter.charge("failed-logins", username, 1);
 * if (!charge.allowed()) throw new RateLimitExceededException("failed-logins", charge.decision());
 * boolean ok = authenticate(username, password);
 * charge.settle(!ok);                         // a success gives its unit back
 * }</pre>
 *
 * <p>Settles once: later calls do nothing. A denied charge took nothing and settles to nothing;
 * so does an admission by a shadow limit's would-be denial or by the {@code open} failure policy.
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
}

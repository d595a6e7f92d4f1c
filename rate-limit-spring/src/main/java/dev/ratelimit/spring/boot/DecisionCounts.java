package dev.ratelimit.spring.boot;

import dev.ratelimit.Decision;
import dev.ratelimit.DecisionListener;
import dev.ratelimit.FailurePolicy;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The limiter's decisions per named limit, by outcome and by what decided (the store, or a
 * failure policy while it was down): a {@link DecisionListener} on the auto-configured
 * {@link dev.ratelimit.limiter.RateLimiter}, read by the {@code ratelimit.decisions} meters and the
 * {@code ratelimits} endpoint. Every decision counts, checks included, except the endpoint's own
 * peeks ({@link #unobserved}); limits passed directly (by spec, without a name) are not counted.
 *
 * @since 1.0
 */
public final class DecisionCounts implements DecisionListener {
  /** Fixed at startup: a plain map, read without locks, and no growth from what callers send. */
  private final Map<String, Counts> counts;
  /** Peeks in progress: while 0, {@link #onDecision} reads no thread-local. */
  private volatile int peeking;
  private final ThreadLocal<Boolean> peek = new ThreadLocal<>();

  /** The counts of one limit. */
  public static final class Counts {
    private final LongAdder allowed = new LongAdder();
    private final LongAdder denied = new LongAdder();
    private final LongAdder fallbackAllowed = new LongAdder();
    private final LongAdder fallbackDenied = new LongAdder();
    private final LongAdder shadowDenied = new LongAdder();

    /**
     * Admitted, by the store or by a failure policy; without the would-be denials of a shadow
     * limit (admitted too, counted apart: allowed, denied and shadow-denied add up to every decision).
     */
    public long allowed() {
      return allowed.sum() + fallbackAllowed.sum();
    }

    /** Denied, by the store or by a failure policy. */
    public long denied() {
      return denied.sum() + fallbackDenied.sum();
    }

    /** Decided by a failure policy while the store was down: the part of the total it made. */
    public long fallbackAllowed() {
      return fallbackAllowed.sum();
    }

    public long fallbackDenied() {
      return fallbackDenied.sum();
    }

    /** Admitted by a limit in {@code mode=shadow} that would have denied them (outcome=shadow-denied). */
    public long shadowDenied() {
      return shadowDenied.sum();
    }

    long storeAllowed() {
      return allowed.sum();
    }

    long storeDenied() {
      return denied.sum();
    }

    void record(boolean admitted, boolean fallback, boolean wouldDeny) {
      if (wouldDeny && !fallback) {
        shadowDenied.increment();
        return;
      }
      (fallback ? admitted ? fallbackAllowed : fallbackDenied : admitted ? allowed : denied).increment();
    }
  }

  public DecisionCounts(Collection<String> limits) {
    Map<String, Counts> byName = new HashMap<>();
    limits.forEach(name -> byName.put(name, new Counts()));
    this.counts = byName;
  }

  @Override
  public void onDecision(String limit, Decision decision, FailurePolicy fallback) {
    onDecision(limit, decision, fallback, false);
  }

  /** Counts a shadow limit's would-be denial as {@code shadow-denied}, not as allowed. */
  @Override
  public void onDecision(String limit, Decision decision, FailurePolicy fallback, boolean shadowDenied) {
    Counts of = counts.get(limit);
    if (of != null && !(peeking != 0 && peek.get() != null)) {
      of.record(decision.allowed(), fallback != null, shadowDenied);
    }
  }

  /** The counts of a named limit, or {@code null} for a name the application did not configure. */
  public Counts counts(String limit) {
    return counts.get(limit);
  }

  /**
   * Runs a call whose decisions (made on this thread) are not counted: an operator's look at a
   * key is not traffic, and a locked-out user looked at must not show as one more denial.
   */
  <T> T unobserved(Supplier<T> call) {
    synchronized (this) {
      peeking++;
    }
    peek.set(Boolean.TRUE);
    try {
      return call.get();
    } finally {
      peek.remove();
      synchronized (this) {
        peeking--;
      }
    }
  }
}

package dev.ratelimit;

/**
 * Hears of every decision a {@link dev.ratelimit.limiter.RateLimiter} makes, for metrics and logs, as Caffeine's
 * {@code StatsCounter} hears of hits and misses. Set with
 * {@link dev.ratelimit.limiter.RateLimiter.Builder#listener(DecisionListener)}.
 *
 * <p>Called once per decision, after the decision is made: once for each {@code limit},
 * {@code check}, {@code reserve} (sync and async), for each
 * attempt of {@code acquire}, and once per {@link dev.ratelimit.limiter.NamedLimiter.Call} of {@code limitAll}. A sharded
 * limit's request is reported once, however many shards it touched. Refunds and resets are not
 * decisions and are not reported. A call refused before any decision (a bad count, an unknown
 * limit) and a {@code closed} limit's call while the store is down (it throws
 * {@link StoreUnavailableException}) are not reported either.
 *
 * <p>A synchronous decision is told on its caller's thread; an asynchronous one that the store
 * completes later is told on the limiter's listener thread, before the caller's stage
 * completes, never on a store's own threads (Redis's event loop, its timers), so that a slow
 * listener can't make the store look unavailable. Keep it fast and non-blocking all the same: a
 * synchronous caller waits for it, and callers starting asynchronous decisions faster than it
 * hears them are slowed down to its pace. Whatever it throws (an {@code Error} too) is caught,
 * logged at most once a minute, and the decision stands, with the units it took.
 *
 * @since 1.0
 */
@FunctionalInterface
public interface DecisionListener {

  /**
   * @param limit the limit's name; for a limit passed directly ({@link dev.ratelimit.limiter.RateLimiter#limit(Limit,
   *     String, double)}), its spec
   * @param decision the decision, as the caller gets it
   * @param fallback {@code null} when the store decided; {@link FailurePolicy#OPEN} or
   *     {@link FailurePolicy#LOCAL} when that policy decided because the store was unavailable
   */
  void onDecision(String limit, Decision decision, FailurePolicy fallback);

  /**
   * What the limiter calls: the three-argument {@link #onDecision(String, Decision,
   * FailurePolicy)} unless overridden. Override it to tell shadow denials apart, e.g. to count
   * them as {@code outcome=shadow-denied}.
   *
   * @param decision the decision as the caller gets it: for a shadow limit, always allowed
   * @param shadowDenied whether a limit in {@code mode=shadow} would have denied this request
   *     (or, for a reservation, made it wait), had it been enforced
   */
  default void onDecision(String limit, Decision decision, FailurePolicy fallback, boolean shadowDenied) {
    onDecision(limit, decision, fallback);
  }
}

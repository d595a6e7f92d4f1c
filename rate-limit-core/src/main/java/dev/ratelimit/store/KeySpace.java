package dev.ratelimit.store;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;
import dev.ratelimit.internal.Futures;
import java.util.concurrent.CompletionStage;

/**
 * The keys of one bound limit in one store. Callers have already checked the count (finite,
 * 0 or more, within what the limit can ever admit); the empty key is the limit's global bucket.
 *
 * @since 1.0
 */
public interface KeySpace {

  String name();

  Limit limit();

  /**
   * Applies one request atomically at the store's current time.
   *
   * @param maxWaitMillis for {@link Operation#RESERVE}: admit only if the wait is at most this
   *     long ({@code Long.MAX_VALUE}: any wait within {@code maxReserved}); ignored otherwise
   */
  Decision apply(String key, Operation op, double count, long maxWaitMillis);

  /**
   * Whether a {@link Operation#LIMIT} of {@code count} units is admitted now (and so taken):
   * {@link #apply}'s {@code allowed()}, deciding exactly the same. A store may answer it without
   * working out the rest of the decision (the remaining units and waits), which nobody reads.
   */
  default boolean admit(String key, double count) {
    return apply(key, Operation.LIMIT, count, 0).allowed();
  }

  /** Forgets the key: it is full again. */
  void reset(String key);

  /**
   * Gives {@code count} unused units back, never above the capacity.
   *
   * @return the key's state afterwards, as a check for 0 units
   */
  Decision refund(String key, double count);

  default CompletionStage<Decision> applyAsync(String key, Operation op, double count, long maxWaitMillis) {
    return Futures.completed(() -> apply(key, op, count, maxWaitMillis));
  }

  default CompletionStage<Void> resetAsync(String key) {
    return Futures.completed(() -> {
      reset(key);
      return null;
    });
  }

  default CompletionStage<Decision> refundAsync(String key, double count) {
    return Futures.completed(() -> refund(key, count));
  }
}

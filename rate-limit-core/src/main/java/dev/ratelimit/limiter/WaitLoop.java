package dev.ratelimit.limiter;

import dev.ratelimit.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The one wait loop of {@code acquire}, {@code acquireAll} and their async forms (which the Spring
 * aspect calls): decide, and while denied wait as long as the decision says, until the next wait
 * would pass the deadline. Waits go through the limiter's clock, so a manual clock drives them in
 * tests.
 */
final class WaitLoop {
  private WaitLoop() {}

  /**
   * The one wait loop: decides and, while denied, sleeps as long as the decision says and tries
   * again, until the next wait would pass the deadline.
   */
  static <T> T retryUntil(Clock clock, Supplier<T> attempt, Predicate<T> allowed, ToLongFunction<T> retryAfter,
      long deadline) throws InterruptedException {
    for (;;) {
      T outcome = attempt.get();
      long wait = retryAfter.applyAsLong(outcome);
      if (allowed.test(outcome) || wait > deadline - clock.millis()) {
        return outcome;
      }
      clock.sleep(Math.max(1, wait));
    }
  }

  /** {@link #retryUntil} without blocking: waits on {@link Clock#after}. */
  static <T> CompletionStage<T> retryUntilAsync(Clock clock, Supplier<CompletionStage<T>> attempt, Predicate<T> allowed,
      ToLongFunction<T> retryAfter, long deadline) {
    return attempt.get().thenCompose(outcome -> {
      long wait = retryAfter.applyAsLong(outcome);
      return allowed.test(outcome) || wait > deadline - clock.millis()
          ? CompletableFuture.completedFuture(outcome)
          : clock.after(Math.max(1, wait))
              .thenCompose(waited -> retryUntilAsync(clock, attempt, allowed, retryAfter, deadline));
    });
  }
}

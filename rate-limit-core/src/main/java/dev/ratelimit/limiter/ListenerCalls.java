package dev.ratelimit.limiter;

import dev.ratelimit.Clock;
import dev.ratelimit.Decision;
import dev.ratelimit.DecisionListener;
import dev.ratelimit.FailurePolicy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * The limiter's side of its {@link DecisionListener} (docs/design.md §10): calls it so that
 * nothing it does or throws reaches a decision, and on the right thread. A synchronous decision
 * is told on its caller's thread, after it is made. An asynchronous one that its store completes
 * later (on the store's own threads: Redis's connection event loop, its timers) is handed to this
 * limiter's listener thread, which tells the listener and then completes the caller's stage: a
 * slow listener never holds up a thread that reads the store's replies or times its calls, so it
 * can never make the store look unavailable; the caller's stage completes once its decision is
 * heard, so counts read after it include it.
 *
 * <p>Memory is bounded: when {@value #MAX_QUEUED} decisions wait for the listener thread, a
 * caller starting another asynchronous decision first tells the listener of waiting ones on its
 * own thread, so that callers deciding faster than the listener hears are slowed down to its
 * pace (never the store's threads: they complete decisions, they do not start them).
 */
final class ListenerCalls {
  /** Decisions waiting for the listener thread before callers help. */
  static final int MAX_QUEUED = 10_000;

  private final DecisionListener listener;
  private final ListenerFailures failures;
  private final HandOff handOff = new HandOff("ratelimit-listener");

  ListenerCalls(DecisionListener listener, Clock clock) {
    this.listener = listener;
    this.failures = new ListenerFailures(clock);
  }

  /** Tells the listener of one decision; whatever it throws is caught and logged at most once a minute. */
  void tell(String limit, Decision decision, FailurePolicy fallback, boolean shadowDenied) {
    try {
      listener.onDecision(limit, decision, fallback, shadowDenied);
    } catch (Throwable failure) { // Errors and sneaky checked exceptions too: the decision stands
      failures.ignored(failure);
    }
  }

  /**
   * {@code finish} applied to what {@code decided} completes with, where the listener may hear it:
   * at once on this (the caller's) thread when the store has already decided, else on the
   * listener thread. Called as the caller starts the decision. The caller gets a copy: cancelling
   * it (a client gone, and Reactor cancels the future it waited on) must not keep the listener
   * from hearing a decision the store made.
   */
  <T, R> CompletionStage<R> after(CompletionStage<T> decided, Function<T, R> finish) {
    CompletableFuture<T> stage = decided.toCompletableFuture();
    if (stage.isDone()) {
      return stage.thenApply(finish);
    }
    helpWhileFull();
    return stage.thenApplyAsync(finish, handOff).copy();
  }

  /** Tells the listener of waiting decisions on this thread while too many wait. */
  private void helpWhileFull() {
    while (handOff.size() >= MAX_QUEUED) {
      Runnable task = handOff.poll();
      if (task == null) {
        return;
      }
      HandOff.run(task);
    }
  }

  /** Its failures, as logged (for tests). */
  ListenerFailures failures() {
    return failures;
  }

  /** Decisions waiting for the listener thread (for tests). */
  int queued() {
    return handOff.size();
  }

  /** Lets the listener thread end once the decisions handed to it are told. */
  void close() {
    handOff.close();
  }
}

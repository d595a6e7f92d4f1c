package dev.ratelimit.redis;

import dev.ratelimit.StoreUnavailableException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The requests a store has taken on and not yet finished with, queued behind a script call or in
 * one (docs/design.md §4.3.1). Load is back-pressure, never a failure: a request waits for its
 * turn as long as Redis answers. What measures Redis is each script call's command timeout alone
 * ({@link ScriptRunner}), counted from when the call is sent; a call that fails so fails the
 * requests waiting behind it at once ({@link ScriptBatcher}), so a Redis that is down or slower
 * than the timeout is still decided by the failure policy within it.
 *
 * <p>Memory stays bounded. A synchronous caller's request is its blocked thread's: the queue holds
 * at most one per waiting thread. Asynchronous requests hold no thread, so at most
 * {@code maxPending} of them are pending at once; one past that is refused at once with a
 * {@link RejectedExecutionException}: not a store failure (the store stays available and no
 * failure policy decides), but the caller asking faster than Redis answers.
 *
 * <p>A request holds its place until its script call returns (or the call's command timeout
 * passes), even when its caller has already had an answer: the call still occupies the
 * connection and Redis.
 */
final class Backlog {
  private final int maxAsync;
  private final String where;
  private final AtomicInteger pending = new AtomicInteger();
  private final AtomicInteger async = new AtomicInteger();
  private final AtomicInteger peak = new AtomicInteger();
  private final LongAdder refused = new LongAdder();

  /**
   * @param maxAsync the most asynchronous requests pending at once
   * @param where the store as users know it, for messages
   */
  Backlog(int maxAsync, String where) {
    this.maxAsync = maxAsync;
    this.where = where;
  }

  /** Takes a place for a request whose thread waits for it: always (its thread is the bound). */
  void enter() {
    counted(pending.incrementAndGet());
  }

  /** Takes a place for an asynchronous request: {@code false} (and counted as refused) when all are taken. */
  boolean enterAsync() {
    for (;;) {
      int now = async.get();
      if (now >= maxAsync) {
        refused.increment();
        return false;
      }
      if (async.compareAndSet(now, now + 1)) {
        counted(pending.incrementAndGet());
        return true;
      }
    }
  }

  private void counted(int now) {
    if (now > peak.get()) {
      peak.accumulateAndGet(now, Math::max);
    }
  }

  /** Gives back the place of a request whose call returned, or that was dropped unsent. */
  void leave(boolean asynchronous) {
    if (asynchronous) {
      async.decrementAndGet();
    }
    pending.decrementAndGet();
  }

  /** Why an asynchronous request was refused a place. */
  RejectedExecutionException full() {
    return new Refused("Redis at " + where + ": " + maxAsync + " asynchronous rate-limit decisions already pending "
        + "(maxPending); this one is refused, not queued: the callers ask faster than Redis answers");
  }

  /**
   * Waits for a reply, however long its turn takes while Redis answers (each call it waits
   * behind either returns or fails within its command timeout); its failure as thrown by the
   * synchronous API. Interrupted, the reply fails as if Redis had, so that a request still queued
   * is never sent: its caller has the failure policy's answer, and Redis must not take its units
   * as well.
   */
  <T> T await(CompletableFuture<T> reply) {
    try {
      return reply.get();
    } catch (ExecutionException e) {
      throw rethrown(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      reply.completeExceptionally(new StoreUnavailableException("interrupted while waiting for Redis at " + where, e));
      try {
        return reply.join(); // answered just now, or failed just above
      } catch (RuntimeException failed) {
        throw rethrown(failed);
      }
    }
  }

  private static RuntimeException rethrown(Exception e) {
    Throwable cause = ScriptRunner.unwrap(e);
    if (cause instanceof RuntimeException runtime) {
      return runtime;
    }
    return new IllegalStateException("rate-limit decision on Redis failed: " + cause, cause);
  }

  /** Requests holding a place now, synchronous and asynchronous. */
  int pending() {
    return pending.get();
  }

  /** Asynchronous requests holding a place now. */
  int asyncPending() {
    return async.get();
  }

  /** The most requests that held a place at once, since the store was built. */
  int peak() {
    return peak.get();
  }

  /** Asynchronous requests refused a place. */
  long refused() {
    return refused.sum();
  }

  /**
   * An asynchronous request refused a place. Without a stack trace: under overload there may be
   * thousands a second, and where it was thrown says nothing.
   */
  private static final class Refused extends RejectedExecutionException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }
}

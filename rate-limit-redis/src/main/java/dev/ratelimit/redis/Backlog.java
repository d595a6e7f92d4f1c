package dev.ratelimit.redis;

import dev.ratelimit.StoreUnavailableException;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The decisions a store has taken on and not yet finished with, queued behind a script call or
 * in one: at most {@code maxPending} at a time, each answered within its deadline. A decision
 * past either fails with {@link StoreUnavailableException} at once, so that the limit's failure
 * policy decides it and the limiter counts the store as unavailable, instead of queueing without
 * bound while Redis is slow (issue 12: 30k queued and 6 s latency with no policy engaging).
 *
 * <p>A decision holds its place until its script call returns (or the call's command timeout
 * passes), even when its caller has already had the deadline's answer: the call still occupies
 * the connection and Redis, and counting it keeps what is queued on the connection bounded too.
 * A decision still queued when its deadline passes is never sent.
 */
final class Backlog {
  private final int max;
  private final long deadlineMillis;
  private final Timer timer;
  private final String where;
  private final AtomicInteger pending = new AtomicInteger();
  private final AtomicInteger peak = new AtomicInteger();
  private final LongAdder shed = new LongAdder();
  private final LongAdder expired = new LongAdder();

  /**
   * @param timer fails asynchronous decisions at their deadline (synchronous callers time their own wait)
   * @param where the store as users know it, for messages
   */
  Backlog(int max, long deadlineMillis, Timer timer, String where) {
    this.max = max;
    this.deadlineMillis = deadlineMillis;
    this.timer = timer;
    this.where = where;
  }

  /** Takes a place for one decision: {@code false} (and counted as shed) when all are taken. */
  boolean enter() {
    for (;;) {
      int now = pending.get();
      if (now >= max) {
        shed.increment();
        return false;
      }
      if (pending.compareAndSet(now, now + 1)) {
        if (now + 1 > peak.get()) {
          peak.accumulateAndGet(now + 1, Math::max);
        }
        return true;
      }
    }
  }

  /** Gives back the place of a decision whose call returned, or that was dropped unsent. */
  void leave() {
    pending.decrementAndGet();
  }

  /** Why a decision was refused a place. */
  StoreUnavailableException full() {
    return new Shed("Redis at " + where + " unavailable: " + max + " decisions already pending (maxPending); "
        + "this one was shed");
  }

  /** When a decision taken on now must have its answer, in {@link System#nanoTime()}. */
  long deadlineFromNow() {
    return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(deadlineMillis);
  }

  /** Fails an asynchronous decision at its deadline, unless it is answered first (then cancel the timeout). */
  Timeout expireLater(CompletableFuture<?> reply) {
    return timer.newTimeout(t -> expire(reply), deadlineMillis, TimeUnit.MILLISECONDS);
  }

  private void expire(CompletableFuture<?> reply) {
    if (reply.completeExceptionally(new Shed("Redis at " + where + " unavailable: no answer within "
        + deadlineMillis + " ms (the deadline, queue time included)"))) {
      expired.increment();
    }
  }

  /**
   * Waits for a decision until its deadline; its failure as thrown by the synchronous API.
   *
   * @param deadlineNanos from {@link #deadlineFromNow()} when the decision was taken on
   */
  <T> T await(CompletableFuture<T> reply, long deadlineNanos) {
    try {
      return reply.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      throw rethrown(e);
    } catch (TimeoutException e) {
      expire(reply);
      return settled(reply);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      // failed here as at the deadline, so that a decision still queued is never sent: its
      // caller has the failure policy's answer, and Redis must not take its units as well
      reply.completeExceptionally(new StoreUnavailableException("interrupted while waiting for Redis at " + where, e));
      return settled(reply);
    }
  }

  /** A reply that is done: answered just now, or failed by this thread's wait. */
  private static <T> T settled(CompletableFuture<T> reply) {
    try {
      return reply.join();
    } catch (RuntimeException failed) {
      throw rethrown(failed);
    }
  }

  private static RuntimeException rethrown(Exception e) {
    Throwable cause = ScriptRunner.unwrap(e);
    if (cause instanceof RuntimeException runtime) {
      return runtime;
    }
    return new IllegalStateException("rate-limit decision on Redis failed: " + cause, cause);
  }

  /** Decisions holding a place now. */
  int pending() {
    return pending.get();
  }

  /** The most decisions that held a place at once, since the store was built. */
  int peak() {
    return peak.get();
  }

  /** Decisions refused a place. */
  long shed() {
    return shed.sum();
  }

  /** Decisions that had a place and failed at their deadline. */
  long expired() {
    return expired.sum();
  }

  /**
   * A decision the store gave up on before Redis answered. Without a stack trace: under overload
   * there may be thousands a second, and where it was thrown says nothing.
   */
  private static final class Shed extends StoreUnavailableException {
    Shed(String message) {
      super(message, null);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }
}

package dev.ratelimit.redis;

import dev.ratelimit.StoreUnavailableException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A store's all-or-nothing script calls ({@code main-all.lua}). Each has keys and arguments of its
 * own, so none share a call, but as a lane's requests do ({@link ScriptBatcher}) they wait for
 * their turn in the client rather than on the connection: at most {@value #MAX_IN_FLIGHT} are
 * sent at once and the others wait in order, so that a call's command timeout, counted from when
 * it is sent, measures Redis and not the calls sent before it (thousands sent at once would put
 * all of Redis's time for them ahead of the last, which could pass its timeout with Redis
 * healthy). A call failing with the store unavailable fails those waiting at once, unsent; a
 * waiting call already answered (its synchronous caller interrupted) is dropped unsent.
 */
final class AllOrNothingCalls {
  /**
   * The most all-or-nothing calls in flight at once: enough to keep Redis busy between round
   * trips (a call of a few keys takes it some tens of µs), few enough that those ahead of a call
   * cost it about a millisecond of Redis's time at most.
   */
  static final int MAX_IN_FLIGHT = 16;

  private final ScriptRunner runner;
  private final Backlog backlog;
  private final ArrayDeque<Call> waiting = new ArrayDeque<>();
  private int inFlight;

  AllOrNothingCalls(ScriptRunner runner, Backlog backlog) {
    this.runner = runner;
    this.backlog = backlog;
  }

  /** One call and its reply; {@code waitedFor}: a thread blocks until it comes. */
  private record Call(String[] keys, String[] args, boolean waitedFor, CompletableFuture<byte[]> reply) {}

  /**
   * The call's reply: sent now when its turn has come, else once it does. With
   * {@code waitedFor}, the caller's thread waits for it; without, it is refused at once past the
   * backlog's bound on asynchronous requests.
   */
  CompletableFuture<byte[]> run(String[] keys, String[] args, boolean waitedFor) {
    if (waitedFor) {
      backlog.enter();
    } else if (!backlog.enterAsync()) {
      return CompletableFuture.failedFuture(backlog.full());
    }
    Call call = new Call(keys, args, waitedFor, new CompletableFuture<>());
    synchronized (this) {
      if (inFlight >= MAX_IN_FLIGHT || !waiting.isEmpty()) {
        waiting.add(call);
        return call.reply;
      }
      inFlight++;
    }
    send(call);
    return call.reply;
  }

  private void send(Call call) {
    CompletableFuture<byte[]> sent;
    try {
      sent = runner.run(Script.LIMIT_ALL, call.keys, call.args);
    } catch (Throwable e) { // a call that can't be sent still ends, or the calls behind it would wait forever
      sent = CompletableFuture.failedFuture(e);
    }
    sent.whenComplete((reply, failure) -> returned(call, reply, failure));
  }

  /** A call's reply handed on, the next calls sent first (so that Redis works while its caller wakes up). */
  private void returned(Call call, byte[] reply, Throwable failure) {
    backlog.leave(!call.waitedFor);
    Throwable cause = failure == null ? null : ScriptRunner.unwrap(failure);
    StoreUnavailableException unavailable = cause instanceof StoreUnavailableException u ? u : null;
    List<Call> next = new ArrayList<>(2);
    List<Call> dropped = null;
    synchronized (this) {
      inFlight--;
      if (unavailable != null && !waiting.isEmpty()) {
        dropped = new ArrayList<>(waiting);
        waiting.clear();
      }
      while (inFlight < MAX_IN_FLIGHT && !waiting.isEmpty()) {
        Call waiter = waiting.poll();
        if (waiter.reply.isDone()) {
          if (dropped == null) {
            dropped = new ArrayList<>();
          }
          dropped.add(waiter);
        } else {
          inFlight++;
          next.add(waiter);
        }
      }
    }
    if (dropped != null) {
      for (Call waiter : dropped) {
        backlog.leave(!waiter.waitedFor);
        if (unavailable != null) {
          waiter.reply.completeExceptionally(unavailable);
        }
      }
    }
    for (Call waiter : next) {
      send(waiter);
    }
    if (cause != null) {
      call.reply.completeExceptionally(cause);
    } else {
      call.reply.complete(reply);
    }
  }
}

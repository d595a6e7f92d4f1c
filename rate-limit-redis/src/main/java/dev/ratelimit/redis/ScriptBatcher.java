package dev.ratelimit.redis;

import dev.ratelimit.StoreUnavailableException;
import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Sends one limit's requests to its script, coalesced: while its {@link Lane} (in a Cluster: the
 * lane of the keys of one slot, which one script can reach) may start no call
 * ({@link Lane#mayStart}), further requests wait in it; when a call returns, all of them (up to
 * {@link #MAX_BATCH}) go in the next call, which decides them key by key and each key's requests in order, exactly as if
 * they had come one by one. A request that finds no call in flight is sent at once, so
 * coalescing adds no latency without contention; under contention a hot key costs a script call
 * per round trip instead of one per request, and many keys share calls too.
 *
 * <p>Every request holds a place in the store's {@link Backlog} from when it is taken on until
 * its call returns or it is dropped unsent. A request waits for its turn however many are queued
 * ahead of it (load is back-pressure: a synchronous caller's thread blocks, asynchronous requests
 * past the backlog's bound are refused); what fails it is its Redis failing: its call's command
 * timeout, or the failure of the call it waits behind, which fails every request waiting in the
 * lane at once, so that the limit's failure policy decides them.
 *
 * <p>A request is its Redis key, its window offset and its operation as the script reads them
 * ({@link RedisKeySpace} writes them); its reply is the decision as the script wrote it.
 */
final class ScriptBatcher {
  /**
   * The most requests decided by one script call: it bounds how long a call keeps Redis busy
   * (64 decisions of a few to a few tens of µs each: at most about a millisecond or two) and so
   * how long a request waits behind one.
   */
  static final int MAX_BATCH = 64;
  private final RedisStore store;
  private final Backlog backlog;
  private final Script script;
  /** The limit's arguments ({@link ScriptArguments#limit}). */
  private final String limit;
  /**
   * The one lane on a standalone server (or Sentinel), every key's. Not several by key hash: a
   * script call costs the client, on Lettuce's event loop and sharing the machine's cores with
   * Redis, about the same whether it carries one decision or twenty, and Redis runs calls one at
   * a time anyway, so more lanes only overlap round trips. With 32 callers on 100,000 keys four
   * lanes made 0.24 calls per decision and one 0.07, for a fifth less client CPU per decision
   * (the event loop's share 40% less) and no more Redis CPU (docs/benchmarks.md §4).
   * What it costs is a wait behind the call in flight: bounded in docs/design.md §4.3.
   */
  private final Lane standalone = new Lane();
  /** The lanes in a Cluster: one per slot, at most 16384, made as keys of a slot come. */
  private final ConcurrentHashMap<Integer, Lane> bySlot = new ConcurrentHashMap<>();

  ScriptBatcher(RedisStore store, Script script, String limit) {
    this.store = store;
    this.backlog = store.backlog();
    this.script = script;
    this.limit = limit;
  }

  // The synchronous form reads its decision on the caller's thread, and may hand the other
  // replies of its call out: Lettuce's event loop, which every call's reply goes through, only
  // wakes one thread per call (see Call).

  /**
   * The reply to one request, waiting for it.
   *
   * @param offset the key's window offset for a fixed window with a random phase, else {@code -}
   * @param encoded {@code op count maxWait}, as the script reads it
   */
  Args.Answer decide(String redisKey, String offset, String encoded) {
    backlog.enter();
    return await(submit(new Request(redisKey, offset, encoded, true)));
  }

  /**
   * The reply to one request, without waiting; failed at once with the backlog's
   * {@link java.util.concurrent.RejectedExecutionException} when its bound on asynchronous
   * requests is reached.
   */
  CompletableFuture<Args.Answer> decideAsync(String redisKey, String offset, String encoded) {
    if (!backlog.enterAsync()) {
      return CompletableFuture.failedFuture(backlog.full());
    }
    return submit(new Request(redisKey, offset, encoded, false)).reply;
  }

  /** A synchronous caller's wait for its reply; if its call chose it, it then wakes the others. */
  private Args.Answer await(Request request) {
    try {
      return backlog.await(request.reply);
    } finally {
      request.abandoned = true;
      Call call = request.handOut;
      if (call != null) {
        call.handOut();
      }
    }
  }

  /** One request waiting for its decision. */
  private static final class Request {
    final String redisKey;
    /** The key's window offset for a fixed window with a random phase, else {@code -} (the limit's). */
    final String offset;
    /** {@code op count maxWait}, as the script reads it: written on the caller's thread. */
    final String encoded;
    /** Whether a thread blocks until the reply comes (the synchronous API). */
    final boolean waitedFor;
    /** Its decision as the script wrote it. */
    final CompletableFuture<Args.Answer> reply = new CompletableFuture<>();
    /** Set before {@link #reply} completes when this request's thread is to wake the others of its call. */
    volatile Call handOut;
    /** Set once its thread no longer waits (it has its reply, or gave up). */
    volatile boolean abandoned;

    Request(String redisKey, String offset, String encoded, boolean waitedFor) {
      this.redisKey = redisKey;
      this.offset = offset;
      this.encoded = encoded;
      this.waitedFor = waitedFor;
    }

    /** Done with its place in the backlog: its call returned, or it is dropped unsent. */
    void leave(Backlog backlog) {
      backlog.leave(!waitedFor);
    }
  }

  /**
   * The replies of one script call, handed out to its requests. Lettuce's single event loop reads
   * every reply of the store; waking each request's thread there (a few microseconds each) would
   * cap the whole store's rate. So the event loop wakes one request whose thread waits for it,
   * and that thread completes the others. A call without such a request is completed on the
   * event loop.
   */
  private static final class Call {
    private final Request[] requests;
    private final Args.Answer[] replies;
    private final AtomicBoolean handedOut = new AtomicBoolean();

    Call(Request[] requests, Args.Answer[] replies) {
      this.requests = requests;
      this.replies = replies;
    }

    /** On the event loop: wakes one waiting thread to hand the replies out, or hands them out. */
    void complete() {
      for (int i = 0; i < replies.length; i++) {
        Request request = requests[i];
        if (request.waitedFor && !request.abandoned) {
          request.handOut = this;
          request.reply.complete(replies[i]);
          if (request.abandoned) {
            handOut(); // its thread left without seeing the hand-out, or may have
          }
          return;
        }
      }
      handOut();
    }

    /** Completes every request, once. */
    void handOut() {
      if (handedOut.compareAndSet(false, true)) {
        for (int i = 0; i < replies.length; i++) {
          requests[i].reply.complete(replies[i]);
        }
      }
    }
  }

  /**
   * The requests of some of this limit's keys (in a Cluster: of one slot): at most two script
   * calls in flight, so that Redis decides one while the client reads the other's reply and sends
   * the next (with one, a lane of 32 callers kept the two cores 1.26 busy: docs/benchmarks.md §4);
   * the other requests wait for the next. Requests are sent in the order they
   * come (one connection keeps that order to Redis), so each key's requests are decided in order.
   */
  private static final class Lane {
    private final ArrayDeque<Request> waiting = new ArrayDeque<>();
    /** The calls in flight, the earlier first; {@code null} for none. */
    private Flight first;
    private Flight second;

    /**
     * Whether a call whose first request is on {@code key} may start now: when none is in flight;
     * or as the second, while the one in flight holds only requests whose threads wait for them
     * and none on this key. Two calls in flight may reach Redis in either order (netty writes from
     * its event loop at once while writes from other threads queue, and a call Redis has lost the
     * script for is sent again), but a thread waiting in the first call has no request in the
     * second, so no thread's requests change order. And a key's requests are not split over two
     * calls at once: each call reads and writes its keys once, so a hot key split in two cost
     * Redis a read and a write more per call and the event loop a reply more, for no overlap
     * gained (docs/benchmarks.md §4).
     */
    boolean mayStart(String key) {
      return first == null || (second == null && !first.async && !first.holds(key));
    }

    /** The call in flight a call starting now runs beside ({@code null}: none). */
    Flight beside() {
      return first;
    }

    Flight started(Request[] call) {
      Flight flight = new Flight(call);
      if (first == null) {
        first = flight;
      } else {
        second = flight;
      }
      return flight;
    }

    void ended(Flight flight) {
      if (first == flight) {
        first = second;
      }
      second = null;
    }
  }

  /** One script call's requests, and whether one of them has no thread waiting for it. */
  private static final class Flight {
    final Request[] requests;
    final boolean async;

    Flight(Request[] requests) {
      this.requests = requests;
      boolean any = false;
      for (Request request : requests) {
        any |= !request.waitedFor;
      }
      this.async = any;
    }

    /** Whether it holds a request on {@code key} (at most {@link #MAX_BATCH} to look at). */
    boolean holds(String key) {
      int hash = key.hashCode();
      for (Request request : requests) {
        String other = request.redisKey;
        if (other.hashCode() == hash && other.equals(key)) {
          return true;
        }
      }
      return false;
    }
  }

  /** Sends the request, or queues it behind its lane's calls in flight. */
  private Request submit(Request request) {
    Request[] call = {request};
    if (!store.coalescing()) {
      send(null, new Flight(call));
      return request;
    }
    Lane lane = laneOf(request.redisKey);
    Flight flight;
    synchronized (lane) {
      if (!lane.waiting.isEmpty() || !lane.mayStart(request.redisKey)) {
        lane.waiting.add(request);
        return request;
      }
      flight = lane.started(call); // nothing waits: this request goes after all sent before
    }
    send(lane, flight);
    return request;
  }

  /**
   * A key's lane: in a Cluster one per slot (a script call reaches the keys of one slot), its
   * slot computed from the bytes Redis receives ({@link ScriptCodec}, not the platform's charset).
   */
  private Lane laneOf(String redisKey) {
    if (store.cluster()) {
      return bySlot.computeIfAbsent(SlotHash.getSlot(ScriptCodec.bytes(redisKey)), slot -> new Lane());
    }
    return standalone;
  }

  /**
   * One script call deciding the batch, key by key and each key's requests in order; then the
   * lane's next batch, if any. This often runs on Lettuce's event loop (when a call returns), so
   * it only puts together what the callers' threads have prepared, in arrays sized once.
   */
  private void send(Lane lane, Flight flight) {
    try {
      call(lane, flight);
    } catch (Throwable e) { // nothing thrown here may leave the lane with a call in flight that never returns
      returned(lane, flight, flight.requests, null, e);
    }
  }

  private void call(Lane lane, Flight flight) {
    Request[] batch = flight.requests;
    Request[] ordered;
    String[] keys;
    String[] args;
    if (batch.length == 1) {
      // nothing else was waiting: the common call without contention
      ordered = batch;
      keys = new String[] {batch[0].redisKey};
      args = ScriptArguments.batch(store.now(), store.keepsEveryKey(), limit, 1);
      args[ScriptArguments.requestsOf(0)] = batch[0].offset + ' ' + batch[0].encoded;
    } else {
      Grouped grouped = Grouped.byKey(batch);
      ordered = grouped.ordered;
      keys = grouped.keys;
      args = ScriptArguments.batch(store.now(), store.keepsEveryKey(), limit, keys.length);
      for (int k = 0; k < keys.length; k++) {
        args[ScriptArguments.requestsOf(k)] = grouped.requestList(k);
      }
    }
    store.runner().run(script, keys, args).whenComplete((reply, failure) -> returned(lane, flight, ordered, reply, failure));
  }

  /** A call's reply (or failure) handed to its requests, and the lane's next calls sent first. */
  private void returned(Lane lane, Flight flight, Request[] ordered, byte[] reply, Throwable failure) {
    Throwable error = failure;
    Args.Answer[] replies = null;
    if (error == null) {
      try {
        replies = new Args.Answer[ordered.length];
        for (int i = 0; i < ordered.length; i++) {
          replies[i] = Args.reply(reply, i);
        }
      } catch (RuntimeException e) {
        error = e;
      }
    }
    Throwable cause = error == null ? null : ScriptRunner.unwrap(error);
    // places first: a caller woken below that decides again finds its place free
    for (Request request : ordered) {
      request.leave(backlog);
    }
    if (lane != null) {
      // the next call first, so that Redis works while this one's callers wake up (handing
      // that to a caller's thread, as the replies below, would delay it by a thread's wake-up)
      next(lane, flight, cause instanceof StoreUnavailableException unavailable ? unavailable : null);
    }
    if (cause != null) {
      for (Request request : ordered) {
        request.reply.completeExceptionally(cause);
      }
    } else {
      new Call(ordered, replies).complete();
    }
  }

  /**
   * A batch's requests grouped by key, the keys in the order each first came and each key's
   * requests in theirs: {@code ordered} holds key 0's requests, then key 1's, and so on.
   */
  private static final class Grouped {
    final Request[] ordered;
    final String[] keys;
    /** Where each key's requests start in {@link #ordered}; one more entry, the end. */
    private final int[] starts;

    private Grouped(Request[] ordered, String[] keys, int[] starts) {
      this.ordered = ordered;
      this.keys = keys;
      this.starts = starts;
    }

    /**
     * Groups by a small open-addressing table of key numbers (at most {@link #MAX_BATCH}
     * requests, at least twice as many slots), then places the requests by counting: a few
     * arrays per call, where a map of lists cost an entry and a list per key.
     */
    static Grouped byKey(Request[] batch) {
      int n = batch.length;
      int[] slots = new int[Integer.highestOneBit(n) * 4]; // key number + 1; 0: free
      int mask = slots.length - 1;
      String[] distinct = new String[n];
      int[] keyOf = new int[n];
      int[] counts = new int[n + 1];
      int keys = 0;
      for (int i = 0; i < n; i++) {
        String key = batch[i].redisKey;
        int at = key.hashCode() & mask;
        while (slots[at] != 0 && !distinct[slots[at] - 1].equals(key)) {
          at = (at + 1) & mask;
        }
        if (slots[at] == 0) {
          distinct[keys] = key;
          slots[at] = ++keys;
        }
        keyOf[i] = slots[at] - 1;
        counts[keyOf[i] + 1]++;
      }
      int[] starts = new int[keys + 1];
      for (int k = 0; k < keys; k++) {
        starts[k + 1] = starts[k] + counts[k + 1];
      }
      int[] next = Arrays.copyOf(starts, keys);
      Request[] ordered = new Request[n];
      for (int i = 0; i < n; i++) {
        ordered[next[keyOf[i]]++] = batch[i];
      }
      return new Grouped(ordered, Arrays.copyOf(distinct, keys), starts);
    }

    /** Key {@code k}'s request list as the script reads it: its offset, then each request's {@code op count maxWait}. */
    String requestList(int k) {
      int from = starts[k];
      int to = starts[k + 1];
      if (to - from == 1) {
        return ordered[from].offset + ' ' + ordered[from].encoded;
      }
      StringBuilder text = new StringBuilder(ordered[from].offset.length() + (to - from) * 12);
      text.append(ordered[from].offset);
      for (int i = from; i < to; i++) {
        text.append(' ').append(ordered[i].encoded);
      }
      return text.toString();
    }
  }

  /**
   * After a call ({@code ended}, as it was sent): the lane's waiting requests go in the next
   * calls, as many as may start, but for those already answered (a synchronous caller
   * interrupted while it waited), which are dropped unsent. A call beside one still in flight
   * takes the waiting requests up to the first on a key that one holds (the rest wait for it, in
   * order). When Redis is unavailable they fail at once with the same cause, rather than each
   * being sent to wait out a command timeout of its own.
   */
  private void next(Lane lane, Flight ended, StoreUnavailableException unavailable) {
    Flight batch = null;
    Flight second = null; // when the lane emptied and more than a batch waits
    List<Request> dropped = null; // requests already answered: rare, so made only when one is
    synchronized (lane) {
      lane.ended(ended);
      ArrayDeque<Request> waiting = lane.waiting;
      if (unavailable != null) {
        dropped = new ArrayList<>(waiting);
        waiting.clear();
      }
      while (!waiting.isEmpty() && lane.mayStart(waiting.peek().redisKey)) {
        Flight beside = lane.beside();
        Request[] taken = new Request[Math.min(MAX_BATCH, waiting.size())];
        int n = 0;
        while (n < taken.length && !waiting.isEmpty() && (beside == null || !beside.holds(waiting.peek().redisKey))) {
          Request request = waiting.poll();
          if (!request.reply.isDone()) {
            taken[n++] = request;
          } else {
            if (dropped == null) {
              dropped = new ArrayList<>();
            }
            dropped.add(request);
          }
        }
        if (n == 0) {
          if (beside != null) {
            break; // only answered requests taken: the rest wait for the call beside
          }
          continue; // only answered requests taken: the lane is empty, so look again
        }
        Flight started = lane.started(n < taken.length ? Arrays.copyOf(taken, n) : taken);
        if (batch == null) {
          batch = started;
        } else {
          second = started;
        }
      }
    }
    if (dropped != null) {
      for (Request request : dropped) {
        request.leave(backlog);
        if (unavailable != null) {
          request.reply.completeExceptionally(unavailable);
        }
      }
    }
    if (batch != null) {
      send(lane, batch);
    }
    if (second != null) {
      send(lane, second);
    }
  }


  @Override
  public String toString() {
    return script + " batcher on " + store;
  }
}

package dev.ratelimit.redis;

import dev.ratelimit.StoreUnavailableException;
import io.lettuce.core.cluster.SlotHash;
import io.netty.util.Timeout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Sends one limit's requests to its script, coalesced: while a script call of this limit is in
 * flight (in a Cluster: for keys of the same slot, which one script can reach), further requests
 * wait in its {@link Lane}; when the call returns, all of them (up to {@link #MAX_BATCH}) go in
 * the next call, which decides them key by key and each key's requests in order, exactly as if
 * they had come one by one. A request that finds no call in flight is sent at once, so
 * coalescing adds no latency without contention; under contention a hot key costs a script call
 * per round trip instead of one per request, and many keys share calls too.
 *
 * <p>Every request holds a place in the store's {@link Backlog} from when it is taken on until
 * its call returns or it is dropped unsent: past the backlog's bound it is refused at once, and
 * past its deadline it fails, so the limit's failure policy decides.
 *
 * <p>A request is its Redis key, its window offset and its operation as the script reads them
 * ({@link RedisKeySpace} writes them); its reply is the decision as the script wrote it.
 */
final class ScriptBatcher {
  /** The most requests decided by one script call (which keeps Redis busy for well under a millisecond). */
  static final int MAX_BATCH = 64;
  /**
   * Script calls of one lane in flight at a time: one. A second would fill the pipe better, but
   * the next batch is sometimes sent from Lettuce's event loop when a call returns, and netty
   * writes from its event loop at once while writes from other threads queue: a batch could
   * overtake a request sent just before it, and a key's requests would no longer be decided in
   * order.
   */
  static final int MAX_IN_FLIGHT = 1;
  /**
   * Lanes of a limit on a standalone server (a key's lane: by its hash): several calls on
   * different keys may be in flight at once, while each key's requests keep their order.
   */
  static final int LANES = 4;
  private final RedisStore store;
  private final Backlog backlog;
  private final Script script;
  /** The limit's arguments ({@link ScriptArguments#limit}). */
  private final String limit;
  /** {@link #LANES} on a standalone server; in a Cluster by slot, at most 16384. */
  private final ConcurrentHashMap<Integer, Lane> lanes = new ConcurrentHashMap<>();

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
    if (!backlog.enter()) {
      throw backlog.full();
    }
    long deadline = backlog.deadlineFromNow();
    return await(submit(new Request(redisKey, offset, encoded, null)), deadline);
  }

  /** The reply to one request, without waiting. */
  CompletableFuture<Args.Answer> decideAsync(String redisKey, String offset, String encoded) {
    if (!backlog.enter()) {
      return CompletableFuture.failedFuture(backlog.full());
    }
    return submit(new Request(redisKey, offset, encoded, backlog)).reply;
  }

  /** A synchronous caller's wait for its reply; if its call chose it, it then wakes the others. */
  private Args.Answer await(Request request, long deadline) {
    try {
      return backlog.await(request.reply, deadline);
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
    /** Whether a thread blocks until the reply comes (the synchronous API): it times its own wait. */
    final boolean waitedFor;
    /** Its decision as the script wrote it. */
    final CompletableFuture<Args.Answer> reply = new CompletableFuture<>();
    /** Fails the reply of an asynchronous request at its deadline; {@code null} for a synchronous one. */
    final Timeout expiry;
    /** Set before {@link #reply} completes when this request's thread is to wake the others of its call. */
    volatile Call handOut;
    /** Set once its thread no longer waits (it has its reply, or gave up). */
    volatile boolean abandoned;

    /** @param expiring the backlog that fails it at its deadline, or {@code null} when a thread waits for it */
    Request(String redisKey, String offset, String encoded, Backlog expiring) {
      this.redisKey = redisKey;
      this.offset = offset;
      this.encoded = encoded;
      this.waitedFor = expiring == null;
      this.expiry = expiring == null ? null : expiring.expireLater(reply);
    }

    /** Done with its place in the backlog: its call returned, or it is dropped unsent. */
    void leave(Backlog backlog) {
      if (expiry != null) {
        expiry.cancel();
      }
      backlog.leave();
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
    private final List<Request> requests;
    private final List<Args.Answer> replies;
    private final AtomicBoolean handedOut = new AtomicBoolean();

    Call(List<Request> requests, List<Args.Answer> replies) {
      this.requests = requests;
      this.replies = replies;
    }

    /** On the event loop: wakes one waiting thread to hand the replies out, or hands them out. */
    void complete() {
      for (int i = 0; i < replies.size(); i++) {
        Request request = requests.get(i);
        if (request.waitedFor && !request.abandoned) {
          request.handOut = this;
          request.reply.complete(replies.get(i));
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
        for (int i = 0; i < replies.size(); i++) {
          requests.get(i).reply.complete(replies.get(i));
        }
      }
    }
  }

  /**
   * The requests of some of this limit's keys (in a Cluster: of one slot): at most
   * {@link #MAX_IN_FLIGHT} script calls at a time, the other requests waiting for the next.
   * Requests are sent in the order they come (one connection keeps that order to Redis), so each
   * key's requests are decided in order.
   */
  private static final class Lane {
    private final ArrayDeque<Request> waiting = new ArrayDeque<>();
    /** Calls in flight; requests wait only while it is at the maximum. */
    private int inFlight;
  }

  /** Sends the request, or queues it behind its lane's call in flight. */
  private Request submit(Request request) {
    String redisKey = request.redisKey;
    if (!store.coalescing()) {
      send(null, List.of(request));
      return request;
    }
    // a key's lane: in a Cluster, one per slot (a script call reaches the keys of one slot)
    int lanesKey = store.cluster() ? SlotHash.getSlot(redisKey) : Math.floorMod(redisKey.hashCode(), LANES);
    Lane lane = lanes.computeIfAbsent(lanesKey, slot -> new Lane());
    synchronized (lane) {
      if (lane.inFlight == MAX_IN_FLIGHT) {
        lane.waiting.add(request);
        return request;
      }
      lane.inFlight++; // nothing waits while a call is free: this request goes after all sent before
    }
    send(lane, List.of(request));
    return request;
  }

  /**
   * One script call deciding the batch, key by key and each key's requests in order; then the
   * lane's next batch, if any. This often runs on Lettuce's event loop (when a call returns), so
   * it only puts together what the callers' threads have prepared.
   */
  private void send(Lane lane, List<Request> batch) {
    List<Request> ordered;
    String[] keys;
    String[] args;
    String first = batch.get(0).redisKey;
    if (batch.stream().allMatch(request -> request.redisKey.equals(first))) {
      // one key (a hot one, or nothing else was waiting)
      ordered = batch;
      keys = new String[] {first};
      args = ScriptArguments.batch(store.now(), store.keepsEveryKey(), limit, 1);
      StringBuilder requests = new StringBuilder(batch.get(0).offset);
      for (Request request : batch) {
        requests.append(' ').append(request.encoded);
      }
      args[ScriptArguments.requestsOf(0)] = requests.toString();
    } else {
      // the requests grouped by key, in the order each key first came
      Map<String, List<Request>> byKey = new LinkedHashMap<>();
      for (Request request : batch) {
        byKey.computeIfAbsent(request.redisKey, k -> new ArrayList<>(2)).add(request);
      }
      keys = byKey.keySet().toArray(String[]::new);
      args = ScriptArguments.batch(store.now(), store.keepsEveryKey(), limit, keys.length);
      ordered = new ArrayList<>(batch.size());
      int at = ScriptArguments.requestsOf(0);
      for (List<Request> requests : byKey.values()) {
        StringBuilder text = new StringBuilder(requests.get(0).offset);
        for (Request request : requests) {
          text.append(' ').append(request.encoded);
          ordered.add(request);
        }
        args[at++] = text.toString();
      }
    }
    store.runner().run(script, keys, args).whenComplete((reply, failure) -> {
      Throwable error = failure;
      List<Args.Answer> replies = null;
      if (error == null) {
        try {
          replies = new ArrayList<>(ordered.size());
          for (int i = 0; i < ordered.size(); i++) {
            replies.add(Args.reply(reply, i));
          }
        } catch (RuntimeException e) {
          error = e;
        }
      }
      Throwable cause = error == null ? null : ScriptRunner.unwrap(error);
      // places first: a caller woken below that decides again finds its place free
      ordered.forEach(request -> request.leave(backlog));
      if (lane != null) {
        // the next call first, so that Redis works while this one's callers wake up (handing
        // that to a caller's thread, as the replies below, would delay it by a thread's wake-up)
        next(lane, cause instanceof StoreUnavailableException unavailable ? unavailable : null);
      }
      if (cause != null) {
        ordered.forEach(request -> request.reply.completeExceptionally(cause));
      } else {
        new Call(ordered, replies).complete();
      }
    });
  }

  /**
   * After a call: the lane's waiting requests go in the next call, but for those already past
   * their deadline, which are dropped unsent. When Redis is unavailable they fail at once with
   * the same cause, rather than each waiting out its own deadline.
   */
  private void next(Lane lane, StoreUnavailableException unavailable) {
    List<Request> batch = new ArrayList<>();
    List<Request> dropped = new ArrayList<>();
    synchronized (lane) {
      if (unavailable != null) {
        dropped.addAll(lane.waiting);
        lane.waiting.clear();
      } else {
        while (batch.size() < MAX_BATCH && !lane.waiting.isEmpty()) {
          Request request = lane.waiting.poll();
          (request.reply.isDone() ? dropped : batch).add(request);
        }
      }
      if (batch.isEmpty()) {
        lane.inFlight--;
      }
    }
    dropped.forEach(request -> request.leave(backlog));
    if (unavailable != null) {
      dropped.forEach(request -> request.reply.completeExceptionally(unavailable));
    }
    if (!batch.isEmpty()) {
      send(lane, batch);
    }
  }

  @Override
  public String toString() {
    return script + " batcher on " + store;
  }
}

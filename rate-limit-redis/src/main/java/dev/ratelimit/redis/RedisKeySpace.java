package dev.ratelimit.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.FixedWindow;
import dev.ratelimit.Gcra;
import dev.ratelimit.Limit;
import dev.ratelimit.Quota;
import dev.ratelimit.SlidingLog;
import dev.ratelimit.SlidingWindow;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.algorithm.LimitKind;
import dev.ratelimit.internal.LongKeys;
import dev.ratelimit.store.KeySpace;
import dev.ratelimit.store.Operation;
import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The keys of one limit in a {@link RedisStore}: every request is decided by the limit's Lua
 * script, one {@code EVALSHA} per call.
 *
 * <p>Concurrent requests are coalesced: while a script call of this limit is in flight (in a
 * Cluster: for keys of the same slot, which one script can reach), further requests wait in its
 * {@link Lane}; when the call returns, all of them (up to {@link #MAX_BATCH}) go in the next
 * call, which decides them key by key and each key's requests in order, exactly as if they had
 * come one by one. A request that finds no call in flight is sent at once, so coalescing adds no
 * latency without contention; under contention a hot key costs a script call per round trip
 * instead of one per request, and many keys share calls too.
 */
final class RedisKeySpace implements KeySpace {
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
  /** Script arguments before the requests: now, keep, kind, fingerprint, five parameters. */
  private static final int HEAD = 9;

  private final RedisStore store;
  private final String name;
  private final Limit limit;
  private final Script script;
  /** Kind, fingerprint and parameters; the fifth parameter (a window offset) is set per key. */
  private final String[] head;
  private final FixedWindow randomPhase;
  private final double capacity;
  /** {@link #LANES} on a standalone server; in a Cluster by slot, at most 16384. */
  private final ConcurrentHashMap<Integer, Lane> lanes = new ConcurrentHashMap<>();

  RedisKeySpace(RedisStore store, String name, Limit limit) {
    this.store = store;
    this.name = name;
    this.limit = limit;
    this.script = Script.forKind(limit.kind());
    this.capacity = limit.capacity();
    this.randomPhase = limit instanceof FixedWindow w && w.randomPhase() ? w : null;
    String[] params = parameters(limit);
    this.head = new String[] {limit.kind(), fingerprint(limit, params), params[0], params[1], params[2], params[3],
        params[4]};
  }

  /**
   * The limit as the script reads it: five parameters. Word kinds: rate, period (ms), capacity,
   * maxReserved (-1: unbounded) and the fixed window's offset; sliding window: rate, period,
   * buckets; sliding log: rate, period; quota: rate, cadence, UTC offset (ms).
   */
  private static String[] parameters(Limit limit) {
    if (limit instanceof TokenBucket l) {
      return word(l.rate(), l.period().toMillis(), l.capacity(), l.maxReserved(), 0);
    }
    if (limit instanceof Gcra l) {
      return word(l.rate(), l.period().toMillis(), l.capacity(), l.maxReserved(), 0);
    }
    if (limit instanceof FixedWindow l) {
      long offset = l.randomPhase() ? 0 : LimitKind.of(l).windowOffset(l, "");
      return word(l.rate(), l.period().toMillis(), l.capacity(), l.maxReserved(), offset);
    }
    if (limit instanceof SlidingWindow l) {
      return new String[] {Args.number(l.rate()), Long.toString(l.period().toMillis()), Integer.toString(l.buckets()),
          "0", "0"};
    }
    if (limit instanceof SlidingLog l) {
      return new String[] {Args.number(l.rate()), Long.toString(l.period().toMillis()), "0", "0", "0"};
    }
    Quota q = (Quota) limit;
    return new String[] {Args.number(q.rate()), q.cadence().spec(), Long.toString(q.offset().getTotalSeconds() * 1000L),
        "0", "0"};
  }

  private static String[] word(double rate, long period, double capacity, double maxReserved, long offset) {
    return new String[] {Args.number(rate), Long.toString(period), Args.number(capacity),
        Double.isInfinite(maxReserved) ? Args.NO_BOUND : Args.number(maxReserved), Long.toString(offset)};
  }

  /**
   * Eight hex digits of SHA-256 over the kind and its parameters (for fixed windows, the start
   * or phase): stored with each key's state, so that a name bound to another limit reads its old
   * keys as fresh instead of misreading them.
   */
  private static String fingerprint(Limit limit, String[] params) {
    StringBuilder text = new StringBuilder(limit.kind());
    for (int i = 0; i < 4; i++) {
      text.append(' ').append(params[i]);
    }
    if (limit instanceof FixedWindow w) {
      text.append(' ').append(w.randomPhase() ? "random" : Long.toString(w.start().toEpochMilli()));
    }
    return HexFormat.of().formatHex(LongKeys.sha256(text.toString()), 0, 4);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Limit limit() {
    return limit;
  }

  RedisStore store() {
    return store;
  }

  // The synchronous forms read their decision on the caller's thread, and may hand the other
  // replies of their call out: Lettuce's event loop, which every call's reply goes through, only
  // wakes one thread per call (see Call).

  @Override
  public Decision apply(String key, Operation op, double count, long maxWaitMillis) {
    return Args.decision(await(submit(key, code(op), count, maxWait(op, maxWaitMillis), true)), capacity);
  }

  @Override
  public CompletableFuture<Decision> applyAsync(String key, Operation op, double count, long maxWaitMillis) {
    return submit(key, code(op), count, maxWait(op, maxWaitMillis), false).reply.thenApply(this::decision);
  }

  private static char code(Operation op) {
    return switch (op) {
      case LIMIT -> 'l';
      case CHECK -> 'c';
      case RESERVE -> 'r';
    };
  }

  private static long maxWait(Operation op, long maxWaitMillis) {
    return op == Operation.RESERVE ? maxWaitMillis : 0;
  }

  private Decision decision(String reply) {
    return Args.decision(reply, capacity);
  }

  @Override
  public void reset(String key) {
    await(submit(key, 'x', 0, 0, true));
  }

  @Override
  public CompletableFuture<Void> resetAsync(String key) {
    return submit(key, 'x', 0, 0, false).reply.thenApply(reply -> null);
  }

  @Override
  public Decision refund(String key, double count) {
    return Args.decision(await(submit(key, 'f', count, 0, true)), capacity);
  }

  @Override
  public CompletableFuture<Decision> refundAsync(String key, double count) {
    return submit(key, 'f', count, 0, false).reply.thenApply(this::decision);
  }

  /** A synchronous caller's wait for its reply; if its call chose it, it then wakes the others. */
  private String await(Request request) {
    try {
      return store.await(request.reply);
    } finally {
      request.abandoned = true;
      Call call = request.handOut;
      if (call != null) {
        call.handOut();
      }
    }
  }

  /** The Redis key of a key of this limit. */
  String redisKey(String key) {
    return store.keyNames().of(name, key);
  }

  /** The script's arguments for one charge of an all-or-nothing call: kind, fingerprint, parameters, count. */
  void chargeArgs(String key, double count, String[] into, int at) {
    System.arraycopy(head, 0, into, at, head.length);
    if (randomPhase != null) {
      into[at + 6] = Long.toString(LimitKind.of(randomPhase).windowOffset(randomPhase, key));
    }
    into[at + 7] = Args.number(count);
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
    final CompletableFuture<String> reply = new CompletableFuture<>();
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
    private final String[] replies;
    private final AtomicBoolean handedOut = new AtomicBoolean();

    Call(List<Request> requests, String[] replies) {
      this.requests = requests;
      this.replies = replies;
    }

    /** On the event loop: wakes one waiting thread to hand the replies out, or hands them out. */
    void complete() {
      for (int i = 0; i < replies.length; i++) {
        Request request = requests.get(i);
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
          requests.get(i).reply.complete(replies[i]);
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

  private Request submit(String key, char op, double count, long maxWait, boolean waitedFor) {
    String redisKey = redisKey(key);
    String offset = randomPhase != null ? Long.toString(LimitKind.of(randomPhase).windowOffset(randomPhase, key)) : "-";
    Request request = new Request(redisKey, offset, op + " " + Args.number(count) + " " + Args.millis(maxWait),
        waitedFor);
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
      args = args(1);
      StringBuilder requests = new StringBuilder(batch.get(0).offset);
      for (Request request : batch) {
        requests.append(' ').append(request.encoded);
      }
      args[HEAD] = requests.toString();
    } else {
      // the requests grouped by key, in the order each key first came
      Map<String, List<Request>> byKey = new LinkedHashMap<>();
      for (Request request : batch) {
        byKey.computeIfAbsent(request.redisKey, k -> new ArrayList<>(2)).add(request);
      }
      keys = byKey.keySet().toArray(String[]::new);
      args = args(keys.length);
      ordered = new ArrayList<>(batch.size());
      int at = HEAD;
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
      String[] replies = null;
      if (error == null) {
        try {
          replies = new String[ordered.size()];
          for (int i = 0; i < replies.length; i++) {
            replies[i] = Args.reply(reply, i);
          }
        } catch (RuntimeException e) {
          error = e;
        }
      }
      Throwable cause = error == null ? null : ScriptRunner.unwrap(error);
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

  /** The script's arguments before the requests, and room for those on {@code keys} keys. */
  private String[] args(int keys) {
    String[] args = new String[HEAD + keys];
    args[0] = store.now();
    args[1] = store.keepsEveryKey() ? "1" : "0";
    System.arraycopy(head, 0, args, 2, head.length);
    return args;
  }

  /**
   * After a call: the lane's waiting requests go in the next call. When Redis is unavailable they
   * fail at once with the same cause, rather than each waiting out its own timeout.
   */
  private void next(Lane lane, StoreUnavailableException unavailable) {
    List<Request> batch;
    synchronized (lane) {
      if (lane.waiting.isEmpty() || unavailable != null) {
        lane.inFlight--;
      }
      if (lane.waiting.isEmpty()) {
        return;
      }
      int size = unavailable != null ? lane.waiting.size() : Math.min(MAX_BATCH, lane.waiting.size());
      batch = new ArrayList<>(size);
      for (int i = 0; i < size; i++) {
        batch.add(lane.waiting.poll());
      }
    }
    if (unavailable != null) {
      batch.forEach(request -> request.reply.completeExceptionally(unavailable));
    } else {
      send(lane, batch);
    }
  }

  @Override
  public String toString() {
    return name + " = " + limit + " on " + store;
  }
}

package dev.ratelimit.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.FixedWindow;
import dev.ratelimit.Gcra;
import dev.ratelimit.Limit;
import dev.ratelimit.Quota;
import dev.ratelimit.SlidingLog;
import dev.ratelimit.SlidingWindow;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.store.KeySpace;
import dev.ratelimit.store.LongKeys;
import dev.ratelimit.store.Operation;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;

/**
 * The keys of one limit in a {@link RedisStore}: every request is decided by the limit's Lua
 * script, one {@code EVALSHA} per call, shared with concurrent requests ({@link ScriptBatcher}).
 * This class says what the script reads: the limit's parameters, its fingerprint, each
 * request's key, offset and operation.
 */
final class RedisKeySpace implements KeySpace {
  private final RedisStore store;
  private final String name;
  private final Limit limit;
  /** Kind, fingerprint and parameters ({@link ScriptArguments#limit}); the offset is set per key. */
  private final String[] head;
  private final FixedWindow randomPhase;
  private final double capacity;
  private final ScriptBatcher batcher;

  RedisKeySpace(RedisStore store, String name, Limit limit) {
    this.store = store;
    this.name = name;
    this.limit = limit;
    this.capacity = limit.capacity();
    this.randomPhase = limit instanceof FixedWindow w && w.randomPhase() ? w : null;
    String[] params = parameters(limit);
    this.head = ScriptArguments.limit(limit.kind(), fingerprint(limit, params), params);
    this.batcher = new ScriptBatcher(store, Script.forKind(limit.kind()), head);
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
      long offset = l.randomPhase() ? 0 : l.offsetMillis("");
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

  @Override
  public Decision apply(String key, Operation op, double count, long maxWaitMillis) {
    return decision(batcher.decide(redisKey(key), offset(key), encoded(code(op), count, maxWait(op, maxWaitMillis))));
  }

  @Override
  public CompletableFuture<Decision> applyAsync(String key, Operation op, double count, long maxWaitMillis) {
    return batcher.decideAsync(redisKey(key), offset(key), encoded(code(op), count, maxWait(op, maxWaitMillis)))
        .thenApply(this::decision);
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
    batcher.decide(redisKey(key), offset(key), encoded('x', 0, 0));
  }

  @Override
  public CompletableFuture<Void> resetAsync(String key) {
    return batcher.decideAsync(redisKey(key), offset(key), encoded('x', 0, 0)).thenApply(reply -> null);
  }

  @Override
  public Decision refund(String key, double count) {
    return decision(batcher.decide(redisKey(key), offset(key), encoded('f', count, 0)));
  }

  @Override
  public CompletableFuture<Decision> refundAsync(String key, double count) {
    return batcher.decideAsync(redisKey(key), offset(key), encoded('f', count, 0)).thenApply(this::decision);
  }

  /** The Redis key of a key of this limit. */
  String redisKey(String key) {
    return store.keyNames().of(name, key);
  }

  /** The key's window offset for a fixed window with a random phase, else {@code -} (the limit's). */
  private String offset(String key) {
    return randomPhase != null ? Long.toString(randomPhase.offsetMillis(key)) : "-";
  }

  /** A request as the script reads it: {@code op count maxWait}, written on the caller's thread. */
  private static String encoded(char op, double count, long maxWait) {
    return op + " " + Args.number(count) + " " + Args.millis(maxWait);
  }

  /** Charge {@code i} of an all-or-nothing call, into its script's arguments. */
  void chargeArgs(String key, double count, String[] into, int i) {
    ScriptArguments.charge(into, i, head, randomPhase != null ? Long.toString(randomPhase.offsetMillis(key)) : null,
        Args.number(count));
  }

  @Override
  public String toString() {
    return name + " = " + limit + " on " + store;
  }
}

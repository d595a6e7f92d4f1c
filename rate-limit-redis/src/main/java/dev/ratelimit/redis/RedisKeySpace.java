package dev.ratelimit.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;
import dev.ratelimit.algorithm.LimitKind;
import dev.ratelimit.store.KeySpace;
import java.util.concurrent.CompletableFuture;

/**
 * The keys of one limit in a {@link RedisStore}: every request is decided by the limit's Lua
 * script, one {@code FCALL} or {@code EVALSHA} per call, shared with concurrent requests
 * ({@link ScriptBatcher}).
 * This class says what the script reads: the limit's parameters, its fingerprint, each
 * request's key, offset and operation.
 */
final class RedisKeySpace implements KeySpace {
  private final RedisStore store;
  private final String name;
  private final Limit limit;
  /** Kind, fingerprint and parameters, as one argument ({@link ScriptArguments#limit}); the offset is set per key. */
  private final String head;
  private final LimitKind kind;
  /** Whether each key has a window offset of its own (a fixed window with a random phase). */
  private final boolean offsetPerKey;
  private final double capacity;
  private final ScriptBatcher batcher;

  RedisKeySpace(RedisStore store, String name, Limit limit) {
    this.store = store;
    this.name = name;
    this.limit = limit;
    this.capacity = limit.capacity();
    this.kind = LimitKind.of(limit);
    this.offsetPerKey = kind.offsetPerKey(limit);
    String[] params = parameters(kind, limit);
    // a token bucket, GCRA or fixed window (no random phase) writes what converts its state, and
    // converts what another of its kind wrote under the name: plans, changes, nodes not yet changed
    boolean converts = LimitKind.carriesOver(limit, limit);
    this.head = ScriptArguments.limit(kind.spec(), kind.fingerprint(limit, params), params, converts);
    this.batcher = new ScriptBatcher(store, Script.forKind(kind.spec()), head);
  }

  /**
   * The limit's parameters as the script reads them, from its kind's descriptor: numbers as
   * {@link Args#number}, unbounded as {@link Args#NO_BOUND}, milliseconds and words as they are.
   */
  private static String[] parameters(LimitKind kind, Limit limit) {
    Object[] values = kind.storeParameters(limit);
    String[] written = new String[values.length];
    for (int i = 0; i < values.length; i++) {
      written[i] = values[i] instanceof Double d
          ? (Double.isInfinite(d) ? Args.NO_BOUND : Args.number(d))
          : values[i].toString();
    }
    return written;
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

  /** The limit as the scripts read it ({@link ScriptArguments#limit}), for the lease takes' batcher. */
  String head() {
    return head;
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
      case TAKE -> 'd';
    };
  }

  private static long maxWait(Operation op, long maxWaitMillis) {
    return op == Operation.RESERVE ? maxWaitMillis : 0;
  }

  private Decision decision(Args.Answer reply) {
    return reply.decision(name, capacity);
  }

  @Override
  public void reset(String key) {
    decision(batcher.decide(redisKey(key), offset(key), encoded('x', 0, 0))); // refused on another value format
  }

  @Override
  public CompletableFuture<Void> resetAsync(String key) {
    return batcher.decideAsync(redisKey(key), offset(key), encoded('x', 0, 0)).thenApply(reply -> {
      decision(reply);
      return null;
    });
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
    return offsetPerKey ? Long.toString(kind.windowOffset(limit, key)) : "-";
  }

  /** A request as the script reads it: {@code op count maxWait}, written on the caller's thread. */
  private static String encoded(char op, double count, long maxWait) {
    return op + " " + Args.number(count) + " " + Args.millis(maxWait);
  }

  /** Charge {@code i} of an all-or-nothing call, into its script's arguments. */
  void chargeArgs(String key, double count, String[] into, int i) {
    ScriptArguments.charge(into, i, head, offsetPerKey ? Long.toString(kind.windowOffset(limit, key)) : null,
        Args.number(count));
  }

  @Override
  public String toString() {
    return name + " = " + limit + " on " + store;
  }
}

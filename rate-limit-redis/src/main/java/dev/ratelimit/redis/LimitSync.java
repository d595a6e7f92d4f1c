package dev.ratelimit.redis;

import dev.ratelimit.Limit;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.limiter.RateLimiter;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Keeps one limiter's runtime changes ({@link RateLimiter#replace}) the same on every node of one
 * Redis (DESIGN.md §4.3.2). Redis holds the specs changed at runtime in one hash,
 * {@code prefix:limits}: field {@code name} or {@code name@plan}, value
 * {@code "<version> <Redis ms> <spec>"}, and field {@value #VERSION} counting the changes. A
 * replace on this node writes its field and counts it in one script ({@link #publish}, on the
 * replacing thread, before any call sees the new limit); every {@code interval} one thread reads
 * the count ({@code HGET}) and, only when it moved, the hash, and puts each limit in force: the
 * hash's spec where it has one, the spec the limiter had when syncing began where it has none.
 * Decisions never wait for any of it: they read the limit in force, as ever.
 */
final class LimitSync implements AutoCloseable {
  /** The hash field counting changes; no limit is named so (names are kebab-case). */
  static final String VERSION = "~version";
  /** What is remembered to log once; entries come from an operator's hash, but bound it anyway. */
  private static final int MAX_LOGGED = 1000;
  private static final System.Logger LOG = System.getLogger("dev.ratelimit.redis");
  /**
   * One change, atomically: the count goes up and the field says at which count and Redis time
   * it was written, so of two nodes changing one limit at once the later script wins everywhere.
   * A new hash (first change, or after a DEL or a flush) counts on from Redis time in ms, not
   * from 1, so that no node takes its count for one it put in force before the hash was lost.
   */
  private static final String PUBLISH = """
      local time = redis.call('TIME')
      local now = time[1] * 1000 + math.floor(time[2] / 1000)
      local version = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
      if version == 1 then
        version = now
        redis.call('HSET', KEYS[1], ARGV[1], string.format('%d', version))
      end
      redis.call('HSET', KEYS[1], ARGV[2], string.format('%d %d ', version, now) .. ARGV[3])
      return version""";

  private final RedisClusterAsyncCommands<String, String> commands;
  private final String hash;
  private final long timeoutMillis;
  private final String where;
  private final RateLimiter limiter;
  /** Field → the limit the limiter had when syncing began: in force again when the hash drops the field. */
  private final Map<String, Limit> configured;
  /** Set while this thread puts a change read from Redis in force: that replace is not published back. */
  private final ThreadLocal<Boolean> applying = ThreadLocal.withInitial(() -> false);
  private final Set<String> logged = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService poller;
  /** The poller's one thread, once it runs: {@link #close} waits until it has ended. */
  private volatile Thread thread;
  /** The count of the hash last put in force; {@code null}: no hash (yet). Written by {@link #poll}, under its lock. */
  private volatile String seen;
  /** Whether the last poll failed: a failure is logged when it starts, not every interval. */
  private boolean failing;

  private LimitSync(RedisClusterAsyncCommands<String, String> commands, String hash, long timeoutMillis, String where,
      RateLimiter limiter) {
    this.commands = commands;
    this.hash = hash;
    this.timeoutMillis = timeoutMillis;
    this.where = where;
    this.limiter = limiter;
    this.configured = inForce(limiter);
    this.poller = Executors.newSingleThreadScheduledExecutor(task -> {
      Thread own = new Thread(task, "ratelimit-redis-sync");
      own.setDaemon(true); // never what keeps a JVM alive; close() ends it
      thread = own;
      return own;
    });
  }

  /**
   * Puts the hash's specs in force at once (a node started after a change decides by it from
   * its first call), then polls every {@code intervalMillis}.
   */
  static LimitSync start(RedisClusterAsyncCommands<String, String> commands, String hash, long timeoutMillis,
      String where, RateLimiter limiter, long intervalMillis) {
    LimitSync sync = new LimitSync(commands, hash, timeoutMillis, where, limiter);
    sync.pollQuietly();
    // at a fixed rate: a poll starts every interval (at once after one that took longer), DESIGN.md §4.3.2
    sync.poller.scheduleAtFixedRate(sync::pollQuietly, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
    return sync;
  }

  /** The hash field of a limit under a plan ({@code null}: the default plan). */
  static String field(String name, String plan) {
    return plan == null ? name : name + '@' + plan;
  }

  /**
   * Writes a change made on this node, unless it is one read from Redis being put in force.
   *
   * @throws StoreUnavailableException if Redis does not take it within the command timeout; the
   *     replace then fails and nothing changes, here or elsewhere
   */
  void publish(String name, String plan, Limit limit) {
    if (applying.get()) {
      return;
    }
    await(commands.eval(PUBLISH, ScriptOutputType.INTEGER, new String[] {hash}, VERSION, field(name, plan),
        limit.toString()), "publishing the change of limit '" + field(name, plan) + "'");
  }

  /**
   * One poll: the count, and the hash when the count moved since the hash last put in force.
   * Package-private so that tests can poll without waiting for the interval.
   *
   * @throws StoreUnavailableException if Redis does not answer within the command timeout
   */
  synchronized void poll() {
    String version = await(commands.hget(hash, VERSION), "reading " + hash);
    if (Objects.equals(version, seen)) {
      return;
    }
    Map<String, String> entries = new LinkedHashMap<>(await(commands.hgetall(hash), "reading " + hash));
    String snapshot = entries.remove(VERSION); // the count this very hash was read at
    putInForce(entries);
    seen = snapshot;
  }

  private void pollQuietly() {
    try {
      poll();
      if (failing) {
        failing = false;
        LOG.log(Level.INFO, "reading runtime limit changes from Redis at {0} again", where);
      }
    } catch (RuntimeException e) { // a scheduled task that throws is never run again
      if (!failing && !poller.isShutdown()) {
        failing = true;
        LOG.log(Level.WARNING, "cannot read runtime limit changes from Redis at " + where
            + "; keeping the limits in force and trying again every interval: " + e.getMessage());
      }
    }
  }

  /** Each limit of the limiter: the hash's spec when it has one that this node can use, else the configured one. */
  private void putInForce(Map<String, String> entries) {
    Map<String, Limit> now = inForce(limiter);
    entries.forEach((field, value) -> {
      if (!now.containsKey(field)) {
        logOnce(field + '=' + value, "ignoring the runtime change of limit ''{0}'' in Redis: this node has "
            + "no such limit (or plan)", field);
      }
    });
    now.forEach((field, current) -> {
      String value = entries.get(field);
      Limit wanted = value == null ? configured.get(field) : parse(field, value);
      if (wanted != null && !wanted.equals(current)) {
        replace(field, wanted, value);
      }
    });
  }

  /** The spec of a hash value, or {@code null} (logged once) when this node can't read it. */
  private Limit parse(String field, String value) {
    String[] parts = value.split(" ", 3);
    try {
      if (parts.length < 3) {
        throw new IllegalArgumentException("not \"<version> <ms> <spec>\"");
      }
      return Limit.parse(parts[2]);
    } catch (IllegalArgumentException e) {
      logOnce(field + '=' + value, "ignoring the runtime change of limit ''{0}'' in Redis, keeping the limit in "
          + "force: ''{1}'' is not a spec this node reads: {2}", field, value, e.getMessage());
      return null;
    }
  }

  private void replace(String field, Limit limit, String value) {
    int at = field.indexOf('@');
    applying.set(true);
    try {
      limiter.replace(at < 0 ? field : field.substring(0, at), at < 0 ? null : field.substring(at + 1), limit);
      LOG.log(Level.INFO, "limit ''{0}'' is now ''{1}'' ({2})", field, limit,
          value == null ? "the runtime change was removed from Redis" : "changed at runtime, from Redis");
    } catch (RuntimeException e) {
      logOnce(field + '=' + value, "cannot put the runtime change of limit ''{0}'' in force, keeping the limit "
          + "in force: {1}", field, e.getMessage());
    } finally {
      applying.set(false);
    }
  }

  private void logOnce(String what, String message, Object... args) {
    if (logged.size() < MAX_LOGGED && logged.add(what)) {
      LOG.log(Level.WARNING, message + " (logged once)", args);
    }
  }

  /** Field → limit in force, for every limit and plan of the limiter. */
  private static Map<String, Limit> inForce(RateLimiter limiter) {
    Map<String, Limit> all = new LinkedHashMap<>();
    limiter.limits().forEach((name, limit) -> all.put(field(name, null), limit));
    limiter.plans().forEach((name, plans) -> plans.forEach((plan, limit) -> all.put(field(name, plan), limit)));
    return all;
  }

  private <T> T await(CompletionStage<T> command, String what) {
    try {
      return command.toCompletableFuture().get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("interrupted " + what + " in Redis at " + where, e);
    } catch (TimeoutException e) {
      throw new StoreUnavailableException("Redis at " + where + " did not answer " + what + " within "
          + timeoutMillis + " ms (the command timeout)", e);
    } catch (ExecutionException e) {
      throw new StoreUnavailableException("Redis at " + where + " failed " + what + ": "
          + ScriptRunner.unwrap(e).getMessage(), e.getCause());
    }
  }

  /** Stops polling; a poll in flight is interrupted, and the thread has ended when this returns. */
  @Override
  public void close() {
    poller.shutdownNow();
    try {
      Thread own = thread;
      if (own != null && own != Thread.currentThread()) {
        own.join(timeoutMillis + 1000); // a poll in flight ends within the command timeout
        if (own.isAlive()) {
          LOG.log(Level.WARNING, "the limit sync thread did not end within the command timeout and a second");
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

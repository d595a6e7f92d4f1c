package dev.ratelimit.redis;

import dev.ratelimit.Limit;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.internal.LogText;
import dev.ratelimit.limiter.RateLimiter;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Keeps one limiter's runtime changes ({@link dev.ratelimit.limiter.NamedLimiter#replace}) the same on every node of one
 * Redis (docs/design.md §4.3.2). Redis holds the specs changed at runtime in one hash,
 * {@code prefix:limits}: field {@code name} or {@code name@plan}, value
 * {@code "<version> <Redis ms> <spec>"}, field {@value #VERSION} counting the changes, and field
 * {@code ~format} its value format ({@link ValueFormat}; absent: format 1). A
 * replace on this node writes its field and counts it in one script ({@link #publish}, on the
 * replacing thread, before any call sees the new limit); every {@code interval} one thread runs
 * one script ({@link #READ}) that reads the count and, only when it moved, this node's own fields,
 * and puts each limit in force: the hash's spec where it has one, the spec the limiter had when
 * syncing began where it has none. Decisions never wait for any of it: they read the limit in
 * force, as ever.
 *
 * <p>Anyone who can write to Redis writes this hash, so nothing in it is trusted: the script
 * measures each value before it reads it and sends none over {@value #MAX_VALUE_BYTES} bytes,
 * nor any field name whole; a field this node can't use is logged once (quoted, cut) and never
 * stops the others; and a poll that fails in any way, an {@link Error} included, is logged and
 * the next one runs, as a scheduled task that throws is never run again.
 */
final class LimitSync implements AutoCloseable {
  /** The hash field counting changes; no limit is named so (names are kebab-case). */
  static final String VERSION = "~version";
  /** What is remembered to log once; entries come from an operator's hash, but bound it anyway. */
  private static final int MAX_LOGGED = 1000;
  /** The most bytes a field's value may hold ({@code "<version> <ms> <spec>"}); specs are tens of bytes. */
  static final int MAX_VALUE_BYTES = 4096;
  /** The most fields whose names a poll looks through for the ones naming no limit of this node. */
  static final int MAX_FIELDS = 10_000;
  /** The fields naming no limit of this node that one log line shows, each cut to {@value #NAME_BYTES} bytes. */
  private static final int NAMES_SHOWN = 10;
  private static final int NAME_BYTES = LogText.MAX_CHARS;
  private static final System.Logger LOG = System.getLogger("dev.ratelimit.redis");
  /**
   * One change, atomically: the count goes up and the field says at which count and Redis time
   * it was written, so of two nodes changing one limit at once the later script wins everywhere.
   * A new hash (first change, or after a DEL or a flush) counts on from Redis time in ms, not
   * from 1, so that no node takes its count for one it put in force before the hash was lost.
   */
  private static final String PUBLISH = """
      local format = redis.call('HGET', KEYS[1], ARGV[4])
      if format and format ~= ARGV[5] then
        return redis.error_reply('ERR the runtime changes in ' .. KEYS[1] .. ' are of value format '
            .. string.sub(format, 1, 32) .. ', and this node writes format ' .. ARGV[5])
      end
      redis.call('HSET', KEYS[1], ARGV[4], ARGV[5])
      local time = redis.call('TIME')
      local now = time[1] * 1000 + math.floor(time[2] / 1000)
      local version = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
      if version == 1 then
        version = now
        redis.call('HSET', KEYS[1], ARGV[1], string.format('%d', version))
      end
      redis.call('HSET', KEYS[1], ARGV[2], string.format('%d %d ', version, now) .. ARGV[3])
      return version""";
  /**
   * One poll, atomically, sizes before values (HSTRLEN before HGET), so that no value over the
   * bound and no field name whole ever leaves Redis. KEYS[1] the hash; ARGV: the count's field,
   * the count last put in force, the bounds (value bytes, fields, names shown, name bytes), then
   * this node's fields. The count comes back as a token: {@code ""} no count, {@code "=<count>"},
   * or {@code "#<bytes>"} for a count too long to be one. The same token: {@code {token}}.
   * Else {@code {token, own, fields, others, named}}: for each of this node's fields its value,
   * nil when the hash lacks it, or its size in bytes when over the bound; the hash's field count;
   * how many fields name no limit of this node (or -1: more fields than the bound, not looked
   * through), and the first few of their names in byte order (HKEYS's order changes with the
   * hash), each cut, with its size in bytes; then the hash's value format (nil: none, {@code
   * "#<bytes>"} when too long to be one).
   */
  private static final String READ = """
      local hash = KEYS[1]
      local most, listed, shown, cut = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
      local size = redis.call('HSTRLEN', hash, ARGV[1])
      local token
      if size > 32 then
        token = '#' .. size
      elseif redis.call('HEXISTS', hash, ARGV[1]) == 1 then
        token = '=' .. redis.call('HGET', hash, ARGV[1])
      else
        token = ''
      end
      if token == ARGV[2] then
        return {token}
      end
      local own, mine = {}, {[ARGV[1]] = true, ['@FORMAT@'] = true}
      for i = 7, #ARGV do
        mine[ARGV[i]] = true
        local bytes = redis.call('HSTRLEN', hash, ARGV[i])
        if bytes > most then
          own[#own + 1] = bytes
        elseif redis.call('HEXISTS', hash, ARGV[i]) == 1 then
          own[#own + 1] = redis.call('HGET', hash, ARGV[i])
        else
          own[#own + 1] = false
        end
      end
      local fields = redis.call('HLEN', hash)
      local others, first = -1, {}
      if fields <= listed + 2 then
        others = 0
        for _, name in ipairs(redis.call('HKEYS', hash)) do
          if not mine[name] then
            others = others + 1
            local entry = {string.sub(name, 1, cut), #name}
            if #first < shown or entry[1] < first[#first][1] then
              local at = #first + 1
              while at > 1 and entry[1] < first[at - 1][1] do
                at = at - 1
              end
              table.insert(first, at, entry)
              first[shown + 1] = nil
            end
          end
        end
      end
      local named = {}
      for _, entry in ipairs(first) do
        named[#named + 1] = entry[1]
        named[#named + 1] = entry[2]
      end
      local format = false
      local format_bytes = redis.call('HSTRLEN', hash, '@FORMAT@')
      if format_bytes > 32 then
        format = '#' .. format_bytes
      elseif format_bytes > 0 then
        format = redis.call('HGET', hash, '@FORMAT@')
      end
      return {token, own, fields, others, named, format}""".replace("@FORMAT@", ValueFormat.FIELD);

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
  /**
   * The token of the count last put in force ({@link #READ}); {@code null}: none yet, so the
   * first poll reads the fields even when the hash has no count. Written by {@link #poll}, under its lock.
   */
  private volatile String seen;
  /** The fields naming no limit of this node, as last logged: logged again only when they change. */
  private String othersLogged = "";
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
    // at a fixed rate: a poll starts every interval (at once after one that took longer), docs/design.md §4.3.2;
    // pollQuietly never throws, so the task is never cancelled
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
        limit.toString(), ValueFormat.FIELD, Integer.toString(ValueFormat.VERSION)),
        "publishing the change of limit '" + field(name, plan) + "'");
  }

  /**
   * One poll: the count, and this node's fields when the count moved since the hash last put in
   * force. Package-private so that tests can poll without waiting for the interval.
   *
   * @throws StoreUnavailableException if Redis does not answer within the command timeout
   */
  synchronized void poll() {
    Map<String, Limit> now = inForce(limiter);
    List<String> args = new ArrayList<>(List.of(VERSION, seen == null ? "?" : seen, Integer.toString(MAX_VALUE_BYTES),
        Integer.toString(MAX_FIELDS), Integer.toString(NAMES_SHOWN), Integer.toString(NAME_BYTES)));
    args.addAll(now.keySet());
    List<Object> read = await(commands.eval(READ, ScriptOutputType.MULTI, new String[] {hash},
        args.toArray(String[]::new)), "reading " + hash);
    String token = (String) read.get(0);
    if (read.size() == 1) {
      return;
    }
    Object format = read.size() > 5 ? read.get(5) : null;
    if (format != null && !Integer.toString(ValueFormat.VERSION).equals(format)) {
      // another version's changes: none is put in force, and the next poll reads them again
      logOnce(ValueFormat.FIELD + '=' + format, "ignoring the runtime changes in {0} in Redis, keeping the limits in "
          + "force: they are of value format {1}, and this node reads format {2} only (docs/design.md §4.3)", hash,
          LogText.quoted(String.valueOf(format)), Integer.toString(ValueFormat.VERSION));
      return;
    }
    if (token.startsWith("#")) {
      logOnce(VERSION + token, "ignoring field {0} of {1} in Redis: it holds {2} bytes, not a count; no runtime "
          + "change can be published or seen until it is removed", LogText.quoted(VERSION), hash, token.substring(1));
    }
    putInForce(now, cast(read.get(1)));
    logOthers((Long) read.get(2), (Long) read.get(3), cast(read.get(4)));
    seen = token;
  }

  @SuppressWarnings("unchecked")
  private static List<Object> cast(Object reply) {
    return (List<Object>) reply;
  }

  /**
   * Logs the fields naming no limit or plan of this node: one line, when they differ from the
   * last ones logged (a typo in a field is worth a line; thousands of fields are not worth thousands).
   */
  private void logOthers(long fields, long others, List<Object> named) {
    String said;
    String line;
    if (others < 0) {
      said = "over the bound";
      line = "the hash " + hash + " in Redis has " + fields + " fields, more than the " + MAX_FIELDS
          + " whose names a node looks through: only this node's own limits and plans are read";
    } else if (others > 0) {
      StringBuilder names = new StringBuilder();
      for (int i = 0; i < named.size(); i += 2) {
        String name = (String) named.get(i);
        long bytes = (Long) named.get(i + 1);
        names.append(i == 0 ? "" : ", ").append(LogText.quoted(name))
            .append(bytes > NAME_BYTES ? " (cut, " + bytes + " bytes)" : "");
      }
      long shown = named.size() / 2;
      line = "ignoring " + others + " fields of " + hash + " in Redis that name no limit or plan of this node: "
          + names + (others > shown ? " and " + (others - shown) + " more" : "");
      said = line;
    } else {
      said = "";
      line = null;
    }
    if (!said.equals(othersLogged)) {
      othersLogged = said;
      if (line != null) {
        LOG.log(Level.WARNING, "{0} (logged when they change)", line);
      }
    }
  }

  /**
   * {@link #poll}, and whatever it throws (Redis down, an {@link Error} while reading or putting
   * a change in force) logged once until a poll succeeds again: never thrown, so the scheduled
   * task keeps running, and the limits in force stay.
   */
  private void pollQuietly() {
    try {
      poll();
      if (failing) {
        failing = false;
        LOG.log(Level.INFO, "reading runtime limit changes from Redis at {0} again", where);
      }
    } catch (Throwable e) { // a scheduled task that throws is never run again
      try {
        if (!failing && !poller.isShutdown()) {
          failing = true;
          LOG.log(Level.WARNING, "cannot read runtime limit changes from Redis at {0}; keeping the limits in force "
              + "and trying again every interval: {1}", where, failure(e));
        }
      } catch (Throwable logging) {
        // the logger failed too (out of memory, say): nothing is left to tell; the next poll runs all the same
      }
    }
  }

  /** A failure as a log line shows it: its class, and its message quoted and cut. */
  private static String failure(Throwable e) {
    return e instanceof StoreUnavailableException ? LogText.quoted(e.getMessage())
        : e.getClass().getName() + ": " + LogText.quoted(e.getMessage());
  }

  /**
   * Each limit of the limiter: the hash's spec when it has one that this node can use, else the
   * configured one. {@code values} holds the script's answer for each field of {@code now}, in
   * order; a field that fails in any way is logged and skipped, never stopping the others.
   */
  private void putInForce(Map<String, Limit> now, List<Object> values) {
    int at = 0;
    for (Map.Entry<String, Limit> entry : now.entrySet()) {
      String field = entry.getKey();
      Object value = values.get(at++);
      try {
        Limit wanted = value == null ? configured.get(field) : parse(field, value);
        if (wanted != null && !wanted.equals(entry.getValue())) {
          replace(field, wanted, (String) value);
        }
      } catch (Throwable e) {
        logOnce(field + '=' + value, "cannot put the runtime change of limit {0} in force, keeping the limit in "
            + "force: {1}", LogText.quoted(field), failure(e));
      }
    }
  }

  /** The spec of a hash value, or {@code null} (logged once) when it is too long or this node can't read it. */
  private Limit parse(String field, Object value) {
    if (value instanceof Long bytes) {
      logOnce(field + "=#" + bytes, "refusing the runtime change of limit {0} in Redis, keeping the limit in force: "
          + "its value holds {1} bytes, more than the {2} a change may hold; it was not read", LogText.quoted(field),
          Long.toString(bytes), Integer.toString(MAX_VALUE_BYTES));
      return null;
    }
    String text = (String) value;
    String[] parts = text.split(" ", 3);
    try {
      if (parts.length < 3) {
        throw new IllegalArgumentException("not \"<version> <ms> <spec>\"");
      }
      return Limit.parse(parts[2]);
    } catch (IllegalArgumentException e) {
      logOnce(field + '=' + text, "ignoring the runtime change of limit {0} in Redis, keeping the limit in "
          + "force: {1} is not a spec this node reads: {2}", LogText.quoted(field), LogText.quoted(text),
          LogText.quoted(e.getMessage()));
      return null;
    }
  }

  private void replace(String field, Limit limit, String value) {
    int at = field.indexOf('@');
    applying.set(true);
    try {
      limiter.named(at < 0 ? field : field.substring(0, at)).onPlan(at < 0 ? null : field.substring(at + 1)).replace(limit);
      LOG.log(Level.INFO, "limit {0} is now {1} ({2})", LogText.quoted(field), LogText.quoted(limit.toString()),
          value == null ? "the runtime change was removed from Redis" : "changed at runtime, from Redis");
    } finally {
      applying.set(false);
    }
  }

  /**
   * Logs once per {@code what} (a field and its value): a bad field is read again at each change
   * of the hash, but said once. {@code what} is remembered by its length and hash, not its text.
   */
  private void logOnce(String what, String message, Object... args) {
    if (logged.size() < MAX_LOGGED && logged.add(what.length() + ":" + what.hashCode())) {
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

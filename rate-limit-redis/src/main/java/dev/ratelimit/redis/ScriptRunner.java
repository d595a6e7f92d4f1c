package dev.ratelimit.redis;

import dev.ratelimit.StoreUnavailableException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.api.async.RedisFunctionAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.output.ByteArrayOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@link Script}: on Redis 7 and later (not in a Cluster) as a function, {@code FCALL},
 * loading its library with {@code FUNCTION LOAD} when Redis does not know the function yet
 * (after a restart, a flush, or a failover to a replica that missed it); elsewhere, or once a
 * server has refused {@code FCALL} as an unknown command, {@code EVALSHA}, and {@code EVAL}
 * (which also caches the script) when Redis answers {@code NOSCRIPT}, as after a restart or on
 * a Cluster node that has not seen it yet. Both run the same Lua and reply the same. Every call fails within the command timeout, whatever the connection's own options, and
 * every failure is translated: Redis unreachable, slow or not ready is a
 * {@link StoreUnavailableException} (the limiter then applies the failure policy); a script
 * error is an {@link IllegalStateException} naming the script.
 */
final class ScriptRunner {
  /** Error replies that mean "not now" rather than "wrong": the store is unavailable. */
  private static final List<String> UNAVAILABLE = List.of("LOADING", "BUSY", "MASTERDOWN", "CLUSTERDOWN",
      "TRYAGAIN", "READONLY", "OOM", "NOREPLICAS", "MISCONF");

  /**
   * The connection's commands, sent by hand: a script replies its decisions as one string of
   * bytes (Args.reply), which the connection's UTF-8 codec would not hand over as they are.
   */
  private final BaseRedisAsyncCommands<String, String> commands;
  /**
   * The same connection's function commands, or {@code null}: in a Cluster (a library would have
   * to be loaded on each primary, where EVAL on NOSCRIPT reaches the key's node by itself), or
   * once the server has refused FCALL (before Redis 7).
   */
  private volatile RedisFunctionAsyncCommands<String, String> functions;
  private final Timer timer;
  private final long timeoutMillis;
  private final String where;

  /**
   * @param where the store as users know it, for messages: its URI (without credentials)
   */
  ScriptRunner(RedisScriptingAsyncCommands<String, String> commands, boolean cluster, Timer timer, long timeoutMillis,
      String where) {
    this.commands = castBase(commands);
    this.functions = !cluster && commands instanceof RedisFunctionAsyncCommands<?, ?>
        ? castFunctions(commands) : null;
    this.timer = timer;
    this.timeoutMillis = timeoutMillis;
    this.where = where;
  }

  String where() {
    return where;
  }

  long timeoutMillis() {
    return timeoutMillis;
  }

  /** The script's reply: completes normally, or exceptionally with a translated failure. */
  CompletableFuture<byte[]> run(Script script, String[] keys, String[] args) {
    Guard guard = new Guard();
    guard.timeout = timer.newTimeout(guard, timeoutMillis, TimeUnit.MILLISECONDS);
    RedisFunctionAsyncCommands<String, String> byFunction = functions;
    if (byFunction != null) {
      call(byFunction, script, keys, args, true, guard);
    } else {
      send(script, keys, args, true, guard);
    }
    return guard.result;
  }

  /**
   * A call's command timeout: fails the call when it passes, and cancels the command the call
   * has on the connection then. Lettuce would otherwise still send a command it holds (a
   * connection with its default options sends what it had written again after a reconnect, at
   * least once), and Redis would run it although its requests were decided by the failure policy.
   */
  private final class Guard implements TimerTask {
    /** The call's reply, or its failure. */
    final CompletableFuture<byte[]> result = new CompletableFuture<>();
    /** Set once, before the call's first command is sent. */
    Timeout timeout;
    private volatile RedisFuture<byte[]> command;

    @Override
    public void run(Timeout expired) {
      if (result.completeExceptionally(unavailable(
          new RedisCommandTimeoutException("no answer within " + timeoutMillis + " ms (the command timeout)")))) {
        RedisFuture<byte[]> sent = command;
        if (sent != null) {
          sent.cancel(false);
        }
      }
    }

    /** The call's command now on the connection: cancelled at once if the timeout passed as it was sent. */
    void sent(RedisFuture<byte[]> reply) {
      command = reply;
      if (result.isDone()) {
        reply.cancel(false);
      }
    }

    void succeeded(byte[] reply) {
      timeout.cancel();
      result.complete(reply);
    }

    void failed(RuntimeException error) {
      timeout.cancel();
      result.completeExceptionally(error);
    }
  }

  /**
   * The call's command sent as {@code type} of {@code name} (a function, a SHA-1 or the source);
   * {@code null} when it is not: it failed to dispatch, or its command timeout passed, when it
   * is not sent again (after a load, or by EVAL) because its requests were decided without Redis
   * (the failure policy), and Redis must not take their units too.
   */
  private RedisFuture<byte[]> attempt(CommandType type, String name, Script script, String[] keys, String[] args,
      Guard guard) {
    if (guard.result.isDone()) {
      return null;
    }
    try {
      RedisFuture<byte[]> reply = dispatch(type, name, keys, args);
      guard.sent(reply);
      return reply;
    } catch (RuntimeException e) {
      guard.failed(translate(e, script));
      return null;
    }
  }

  @SuppressWarnings("unchecked")
  private static BaseRedisAsyncCommands<String, String> castBase(RedisScriptingAsyncCommands<String, String> commands) {
    return (BaseRedisAsyncCommands<String, String>) commands; // Lettuce's standalone and Cluster commands both are
  }

  /**
   * FCALL, EVALSHA or EVAL of the script (its function, SHA-1 or source) on these keys and
   * arguments, every one encoded by {@link ScriptCodec}: its exact sizes let Lettuce write each
   * straight into the outgoing buffer, on its event loop (the connection's own codec, whatever it
   * is, plays no part in a script call).
   */
  private RedisFuture<byte[]> dispatch(CommandType type, String script, String[] keys, String[] args) {
    CommandArgs<String, String> command = new CommandArgs<>(ScriptCodec.INSTANCE).addValue(script).add(keys.length)
        .addKeys(keys).addValues(args);
    return commands.dispatch(type, new ByteArrayOutput<>(ScriptCodec.INSTANCE), command);
  }

  @SuppressWarnings("unchecked")
  private static RedisFunctionAsyncCommands<String, String> castFunctions(RedisScriptingAsyncCommands<String, String> commands) {
    return (RedisFunctionAsyncCommands<String, String>) commands; // the same connection: String keys and values
  }

  /**
   * FCALL; when Redis does not know the function, FUNCTION LOAD and FCALL again (once, then
   * EVAL); when it does not know FCALL (before Redis 7), EVALSHA from now on.
   */
  private void call(RedisFunctionAsyncCommands<String, String> byFunction, Script script, String[] keys, String[] args,
      boolean mayLoad, Guard guard) {
    RedisFuture<byte[]> reply = attempt(CommandType.FCALL, script.function(), script, keys, args, guard);
    if (reply == null) {
      return;
    }
    reply.whenComplete((list, error) -> {
      if (error == null) {
        guard.succeeded(list);
        return;
      }
      if (refusesFunctions(error)) {
        functions = null;
        send(script, keys, args, true, guard);
      } else if (unwrap(error) instanceof RedisCommandExecutionException refused
          && String.valueOf(refused.getMessage()).startsWith("ERR Function not found")) {
        if (!mayLoad) {
          // lost again between FUNCTION LOAD and this FCALL (flushed twice within a round
          // trip): EVAL carries the script itself, so no flush can make it fail like this
          send(script, keys, args, false, guard);
          return;
        }
        byFunction.functionLoad(script.library(), true).whenComplete((name, loadError) -> {
          if (loadError == null) {
            call(byFunction, script, keys, args, false, guard);
          } else if (refusesFunctions(loadError)) {
            functions = null;
            send(script, keys, args, true, guard);
          } else {
            guard.failed(translate(loadError, script));
          }
        });
      } else {
        guard.failed(translate(error, script));
      }
    });
  }

  private void send(Script script, String[] keys, String[] args, boolean bySha, Guard guard) {
    RedisFuture<byte[]> reply = bySha ? attempt(CommandType.EVALSHA, script.sha(), script, keys, args, guard)
        : attempt(CommandType.EVAL, script.source(), script, keys, args, guard);
    if (reply == null) {
      return;
    }
    reply.whenComplete((list, error) -> {
      if (error == null) {
        guard.succeeded(list);
      } else if (bySha && unwrap(error) instanceof RedisNoScriptException) {
        send(script, keys, args, false, guard);
      } else {
        guard.failed(translate(error, script));
      }
    });
  }

  /**
   * Whether the server will not run functions for us: before Redis 7 it does not know FCALL, and
   * an ACL may allow EVALSHA but not FCALL or FUNCTION LOAD. The scripts then run by EVALSHA.
   */
  private static boolean refusesFunctions(Throwable error) {
    if (!(unwrap(error) instanceof RedisCommandExecutionException reply)) {
      return false;
    }
    String message = String.valueOf(reply.getMessage());
    return message.startsWith("ERR unknown command") || message.startsWith("NOPERM");
  }

  /**
   * A failure as the limiter understands it.
   *
   * @param script the script that failed, or {@code null} if not known
   */
  RuntimeException translate(Throwable error, Script script) {
    String what = script == null ? "script" : script.toString();
    Throwable cause = unwrap(error);
    if (cause instanceof StoreUnavailableException unavailable) {
      return unavailable;
    }
    if (cause instanceof RedisCommandExecutionException reply) {
      String message = String.valueOf(reply.getMessage());
      if (UNAVAILABLE.stream().anyMatch(message::startsWith)) {
        return unavailable(reply);
      }
      return new IllegalStateException("Redis at " + where + " refused the rate-limit " + what + ": " + message, reply);
    }
    if (cause instanceof RedisException || cause instanceof IOException) {
      return unavailable(cause);
    }
    if (cause instanceof RuntimeException runtime) {
      return runtime;
    }
    return new IllegalStateException("rate-limit " + what + " on Redis at " + where + " failed: " + cause, cause);
  }

  StoreUnavailableException unavailable(Throwable cause) {
    return new StoreUnavailableException("Redis at " + where + " unavailable: " + cause.getMessage(), cause);
  }

  static Throwable unwrap(Throwable error) {
    Throwable cause = error;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }
}

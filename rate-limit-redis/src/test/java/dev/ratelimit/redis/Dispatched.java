package dev.ratelimit.redis;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.ManualClock;
import dev.ratelimit.limiter.RateLimiter;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.event.command.CommandFailedEvent;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import io.lettuce.core.event.command.CommandSucceededEvent;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store on its own Lettuce client (by default with the options a store gives the client it
 * makes: reconnect, commands rejected while disconnected) and the test clock (keys never expire);
 * its script calls counted as Lettuce sends them, and how often one started while another was in
 * flight (CoalescingIT, TwoCallsInFlightIT).
 */
final class Dispatched implements AutoCloseable {
  /** How long the limiter skips a failed store before it probes it again (on {@link #limiterClock}). */
  static final Duration RETRY = Duration.ofSeconds(1);

  final AtomicInteger scriptCalls = new AtomicInteger();
  final AtomicInteger loads = new AtomicInteger();
  final AtomicInteger overlaps = new AtomicInteger();
  private final AtomicInteger outstanding = new AtomicInteger();
  final ManualClock limiterClock = new ManualClock(1_000_000);
  final AtomicInteger evals = new AtomicInteger();
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  final RedisStore store;

  Dispatched(String uri, Duration timeout) {
    this(uri, timeout, ClientOptions.builder().autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build()).build());
  }

  /** @param options the client's options: an application's connection may have any */
  Dispatched(String uri, Duration timeout, ClientOptions options) {
    client = RedisClient.create(uri);
    client.setOptions(options);
    client.addListener(new CommandListener() {
      @Override
      public void commandStarted(CommandStartedEvent event) {
        String type = event.getCommand().getType().toString();
        if (isScript(type)) {
          scriptCalls.incrementAndGet();
          if (type.equals("EVAL")) {
            evals.incrementAndGet();
          }
          if (outstanding.getAndIncrement() > 0) {
            overlaps.incrementAndGet();
          }
        } else if (type.equals("FUNCTION")) {
          loads.incrementAndGet();
        }
      }

      @Override
      public void commandSucceeded(CommandSucceededEvent event) {
        if (isScript(event.getCommand().getType().toString())) {
          outstanding.decrementAndGet();
        }
      }

      @Override
      public void commandFailed(CommandFailedEvent event) {
        if (isScript(event.getCommand().getType().toString())) {
          outstanding.decrementAndGet();
        }
      }
    });
    connection = client.connect(StringCodec.UTF8);
    store = RedisStore.builder().connection(connection).commandTimeout(timeout).maxPending(100_000)
        .clock(new ManualClock(1_000_000)).build();
  }

  /** Script calls sent and not yet answered. */
  int outstanding() {
    return outstanding.get();
  }

  private static boolean isScript(String type) {
    return type.equals("FCALL") || type.equals("EVALSHA") || type.equals("EVAL");
  }

  RateLimiter limiter(String name, String spec, FailurePolicy policy) {
    return RateLimiter.builder().store(store).clock(limiterClock).storeRetry(RETRY).storeFailure(policy)
        .limit(name, spec).build();
  }

  @Override
  public void close() {
    store.close();
    connection.close();
    client.shutdown();
  }
}

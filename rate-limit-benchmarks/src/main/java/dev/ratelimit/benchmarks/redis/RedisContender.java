package dev.ratelimit.benchmarks.redis;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Limit;
import dev.ratelimit.bucket4j.Bucket4jStore;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.redis.RedisStore;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One distributed rate limiter under test, on its own Lettuce connection to the shared
 * {@code redis-server}. Every contender gets the same limit: a token bucket of 10⁹ units
 * refilling over 100 years, so that every call is admitted and writes state (none is ever
 * fresh), on a hot key or on many keys.
 */
interface RedisContender extends AutoCloseable {
  long CAPACITY = 1_000_000_000L;
  Duration PERIOD = Duration.ofDays(36_500);

  List<String> NAMES = List.of("rate-limit", "rate-limit-uncoalesced", "rate-limit-lease", "bucket4j",
      "bucket4j-batching", "rate-limit-bucket4j", "lettuce-evalsha", "lua-token-bucket", "rate-limit-script");
  /** Units per lease of {@code rate-limit-lease} (system property {@code lease}). */
  double LEASE = Double.parseDouble(System.getProperty("lease", "50"));

  /** One decision for one unit on {@code key}, synchronously; whether it was admitted. */
  boolean acquire(String key);

  @Override
  void close();

  static RedisContender create(String name, RedisClient client) {
    return switch (name) {
      case "rate-limit" -> new Ours(client, true);
      case "rate-limit-uncoalesced" -> new Ours(client, false);
      case "rate-limit-lease" -> new Leasing(client);
      case "bucket4j" -> new Bucket4j(client, false);
      case "bucket4j-batching" -> new Bucket4j(client, true);
      case "rate-limit-bucket4j" -> new Bridge(client);
      case "lettuce-evalsha" -> new BareEvalsha(client);
      case "lua-token-bucket" -> new MinimalLua(client);
      case "rate-limit-script" -> new ScriptReplay(client);
      default -> throw new IllegalArgumentException("unknown contender " + name);
    };
  }

  /** rate-limit's RedisStore behind a RateLimiter: one EVALSHA per decision, or per batch on a hot key. */
  final class Ours implements RedisContender {
    private final StatefulRedisConnection<String, String> connection;
    private final RateLimiter limiter;

    Ours(RedisClient client, boolean coalescing) {
      connection = client.connect(StringCodec.UTF8);
      RedisStore store = RedisStore.builder().connection(connection).coalescing(coalescing)
          .commandTimeout(Duration.ofSeconds(10)).build();
      limiter = RateLimiter.builder().store(store).storeFailure(FailurePolicy.CLOSED)
          .limit("api", Limit.tokenBucket(CAPACITY, PERIOD)).build();
    }

    @Override
    public boolean acquire(String key) {
      return limiter.named("api").limit(key, 1).allowed();
    }

    @Override
    public void close() {
      limiter.close();
      connection.close();
    }
  }

  /**
   * Two application nodes with leases ({@code lease=50}, docs/design.md §4.3.3): two
   * RedisStores on two connections, two RateLimiters on one key space; the callers alternate
   * between them (each thread keeps its node).
   */
  final class Leasing implements RedisContender {
    private final List<StatefulRedisConnection<String, String>> connections;
    private final List<RateLimiter> limiters;
    private final java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
    private final ThreadLocal<RateLimiter> mine;

    Leasing(RedisClient client) {
      connections = List.of(client.connect(StringCodec.UTF8), client.connect(StringCodec.UTF8));
      limiters = connections.stream().map(connection -> RateLimiter.builder()
          .store(RedisStore.builder().connection(connection).commandTimeout(Duration.ofSeconds(10)).build())
          .storeFailure(FailurePolicy.CLOSED)
          .limit("api", Limit.tokenBucket(CAPACITY, PERIOD).withLease(LEASE)).build()).toList();
      mine = ThreadLocal.withInitial(() -> limiters.get(next.getAndIncrement() % limiters.size()));
    }

    @Override
    public boolean acquire(String key) {
      return mine.get().named("api").limit(key, 1).allowed();
    }

    @Override
    public void close() {
      limiters.forEach(RateLimiter::close);
      connections.forEach(StatefulRedisConnection::close);
    }
  }

  /**
   * rate-limit's API with bucket4j holding the state: {@code Bucket4jStore} over the same
   * bucket4j-lettuce ProxyManager as {@link Bucket4j}, behind a RateLimiter.
   */
  final class Bridge implements RedisContender {
    private final StatefulRedisConnection<String, byte[]> connection;
    private final RateLimiter limiter;

    Bridge(RedisClient client) {
      connection = client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
      ProxyManager<String> proxies = Bucket4jLettuce.casBasedBuilder(connection)
          .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
          .build();
      limiter = RateLimiter.builder().store(Bucket4jStore.of(proxies)).storeFailure(FailurePolicy.CLOSED)
          .limit("api", Limit.tokenBucket(CAPACITY, PERIOD)).build();
    }

    @Override
    public boolean acquire(String key) {
      return limiter.named("api").limit("bridge:" + key, 1).allowed();
    }

    @Override
    public void close() {
      limiter.close();
      connection.close();
    }
  }

  /**
   * Not a rate limiter: one {@code EVALSHA} of {@code return 1} per call through Lettuce, the
   * most a Java client can do with one script per call on this machine.
   */
  final class BareEvalsha implements RedisContender {
    private final StatefulRedisConnection<String, String> connection;
    private final String sha;

    BareEvalsha(RedisClient client) {
      connection = client.connect(StringCodec.UTF8);
      sha = connection.sync().scriptLoad("return 1");
    }

    @Override
    public boolean acquire(String key) {
      try {
        Long one = connection.async().<Long>evalsha(sha, io.lettuce.core.ScriptOutputType.INTEGER, key).get();
        return one == 1;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      } catch (java.util.concurrent.ExecutionException e) {
        throw new IllegalStateException(e.getCause());
      }
    }

    @Override
    public void close() {
      connection.close();
    }
  }

  /**
   * Not a full rate limiter: the smallest hand-written token bucket, one {@code EVALSHA} per
   * decision ({@code TIME}, {@code HMGET} tokens and stamp, {@code HSET}, {@code PEXPIRE}), the
   * yardstick for the Redis CPU a decision should cost. No exact waits, no fingerprint, no
   * coalescing, no failure policy.
   */
  final class MinimalLua implements RedisContender {
    static final String SCRIPT = """
        local capacity, per_milli, count = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
        local time = redis.call('TIME')
        local now = time[1] * 1000 + math.floor(time[2] / 1000)
        local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
        local tokens = tonumber(state[1]) or capacity
        local ts = tonumber(state[2]) or now
        tokens = math.min(capacity, tokens + math.max(0, now - ts) * per_milli)
        local allowed = 0
        if tokens >= count then
          tokens = tokens - count
          allowed = 1
        end
        redis.call('HSET', KEYS[1], 'tokens', tokens, 'ts', now)
        redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / per_milli))
        return allowed
        """;
    private final StatefulRedisConnection<String, String> connection;
    private final String sha;
    private final String capacity = Long.toString(CAPACITY);
    private final String perMilli = Double.toString((double) CAPACITY / PERIOD.toMillis());

    MinimalLua(RedisClient client) {
      connection = client.connect(StringCodec.UTF8);
      sha = connection.sync().scriptLoad(SCRIPT);
    }

    @Override
    public boolean acquire(String key) {
      Long allowed = connection.sync().evalsha(sha, io.lettuce.core.ScriptOutputType.INTEGER, new String[] {"lua:" + key},
          capacity, perMilli, "1");
      return allowed == 1;
    }

    @Override
    public void close() {
      connection.close();
    }
  }

  /**
   * Not a rate limiter: rate-limit's own script call, byte for byte what {@code RedisStore} sends
   * without coalescing (captured from its first call, the key swapped per decision), sent the way
   * {@link MinimalLua} sends its script: one synchronous call per decision from the caller's
   * thread, no store around it. Redis's CPU per decision here against {@code lua-token-bucket}'s is
   * the script's own cost; against {@code rate-limit-uncoalesced}'s, what the store's client (its
   * pace, and so how many commands Redis finds per socket read) does to the same script's cost.
   */
  final class ScriptReplay implements RedisContender {
    private static final String CAPTURED = "hot";
    private final StatefulRedisConnection<String, String> connection;
    private final io.lettuce.core.protocol.ProtocolKeyword type;
    /** The captured arguments, the key's among them replaced per call. */
    private final List<byte[]> arguments;
    private final int keyAt;
    private final String keyPrefix;
    private final String keySuffix;

    ScriptReplay(RedisClient client) {
      Capture capture = new Capture();
      client.addListener(capture);
      try (StatefulRedisConnection<String, String> storeConnection = client.connect(StringCodec.UTF8);
           RateLimiter limiter = RateLimiter.builder()
               .store(RedisStore.builder().connection(storeConnection).coalescing(false).build())
               .storeFailure(FailurePolicy.CLOSED).limit("api", Limit.tokenBucket(CAPACITY, PERIOD)).build()) {
        limiter.named("api").limit(CAPTURED, 1);
      } finally {
        client.removeListener(capture);
      }
      if (capture.type == null) {
        throw new IllegalStateException("RedisStore sent no script call");
      }
      type = capture.type;
      arguments = capture.arguments;
      // FCALL/EVALSHA name numkeys key ...: the one key follows the key count
      keyAt = 2;
      String key = new String(arguments.get(keyAt), java.nio.charset.StandardCharsets.UTF_8);
      int at = key.lastIndexOf(CAPTURED);
      if (!"1".equals(new String(arguments.get(1), java.nio.charset.StandardCharsets.UTF_8)) || at < 0) {
        throw new IllegalStateException("not a one-key script call on " + CAPTURED + ": " + key);
      }
      keyPrefix = key.substring(0, at);
      keySuffix = key.substring(at + CAPTURED.length());
      connection = client.connect(StringCodec.UTF8);
    }

    @Override
    public boolean acquire(String key) {
      io.lettuce.core.protocol.CommandArgs<String, String> args = new io.lettuce.core.protocol.CommandArgs<>(StringCodec.UTF8);
      for (int i = 0; i < arguments.size(); i++) {
        args.add(i == keyAt ? (keyPrefix + key + keySuffix).getBytes(java.nio.charset.StandardCharsets.UTF_8)
            : arguments.get(i));
      }
      byte[] reply = connection.sync().dispatch(type, new io.lettuce.core.output.ByteArrayOutput<>(StringCodec.UTF8), args);
      return reply[0] == 1; // the first of a decision's 25 bytes: allowed
    }

    @Override
    public void close() {
      connection.close();
    }

    /** The first script call's type and arguments, as they went on the wire. */
    private static final class Capture implements io.lettuce.core.event.command.CommandListener {
      volatile io.lettuce.core.protocol.ProtocolKeyword type;
      volatile List<byte[]> arguments;

      @Override
      public void commandStarted(io.lettuce.core.event.command.CommandStartedEvent event) {
        String name = event.getCommand().getType().toString();
        if (type == null && (name.equals("FCALL") || name.equals("EVALSHA"))) {
          io.netty.buffer.ByteBuf encoded = io.netty.buffer.Unpooled.buffer();
          try {
            event.getCommand().getArgs().encode(encoded);
            arguments = bulkStrings(encoded);
          } finally {
            encoded.release();
          }
          type = event.getCommand().getType();
        }
      }

      /** RESP bulk strings, {@code $<length>\r\n<bytes>\r\n} each, as Lettuce encodes a command's arguments. */
      private static List<byte[]> bulkStrings(io.netty.buffer.ByteBuf in) {
        List<byte[]> out = new java.util.ArrayList<>();
        while (in.isReadable()) {
          if (in.readByte() != '$') {
            throw new IllegalStateException("not a bulk string at " + (in.readerIndex() - 1));
          }
          int length = 0;
          for (byte b = in.readByte(); b != '\r'; b = in.readByte()) {
            length = 10 * length + (b - '0');
          }
          in.skipBytes(1);
          byte[] bytes = new byte[length];
          in.readBytes(bytes);
          in.skipBytes(2);
          out.add(bytes);
        }
        return out;
      }
    }
  }

  /**
   * bucket4j's Lettuce ProxyManager (compare-and-swap: GET, then EVAL of a CAS script), plain or
   * with its batching optimisation; one bucket proxy per key, looked up in a map as a web app
   * would keep them.
   */
  final class Bucket4j implements RedisContender {
    private final StatefulRedisConnection<String, byte[]> connection;
    private final ProxyManager<String> proxies;
    private final BucketConfiguration configuration;
    private final boolean batching;
    private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();

    Bucket4j(RedisClient client, boolean batching) {
      this.batching = batching;
      connection = client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
      proxies = Bucket4jLettuce.casBasedBuilder(connection)
          .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
          .build();
      configuration = BucketConfiguration.builder()
          .addLimit(Bandwidth.builder().capacity(CAPACITY).refillGreedy(CAPACITY, PERIOD).build()).build();
    }

    @Override
    public boolean acquire(String key) {
      Bucket bucket = buckets.get(key);
      if (bucket == null) {
        bucket = buckets.computeIfAbsent(key, k -> batching
            ? proxies.builder().withOptimization(Optimizations.batching()).build("b4j:" + k, () -> configuration)
            : proxies.builder().build("b4j:" + k, () -> configuration));
      }
      return bucket.tryConsume(1);
    }

    @Override
    public void close() {
      connection.close();
    }
  }
}

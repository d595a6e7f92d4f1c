package dev.ratelimit.bucket4j;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.distributed.AsyncBucketProxy;
import io.github.bucket4j.distributed.proxy.AsyncProxyManager;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.proxy.RemoteAsyncBucketBuilder;
import io.github.bucket4j.distributed.proxy.RemoteBucketBuilder;
import io.github.bucket4j.local.LocalBucket;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/** Where a store's buckets live: local buckets in this JVM, or a {@link ProxyManager}'s backend. */
sealed interface Buckets permits Buckets.Local, Buckets.Proxied {

  /**
   * The bucket of a key, made from {@code configuration} if the key has none yet.
   *
   * @param keep whether the call may change the bucket; local buckets that only answer a look
   *     need not be kept (a fresh one answers the same)
   */
  Bucket bucket(String key, Supplier<BucketConfiguration> configuration, boolean keep);

  /** Forgets a key's bucket. */
  void remove(String key);

  /** The asynchronous view of the backend, or {@code null} when it has none. */
  default Async async() {
    return null;
  }

  /** Whether calls cross a network, so that their failures mean the backend can't be reached. */
  boolean remote();

  default void close() {}

  /** bucket4j's asynchronous API over a backend that has one (bucket4j-lettuce does, JCache doesn't). */
  record Async(AsyncProxyManager<String> manager, RemoteAsyncBucketBuilder<String> builder) {
    AsyncBucketProxy bucket(String key, Supplier<BucketConfiguration> configuration) {
      return builder.build(key, () -> CompletableFuture.completedFuture(configuration.get()));
    }

    CompletableFuture<Void> remove(String key) {
      return manager.removeProxy(key);
    }
  }

  /** Lock-free local buckets (bucket4j's default), one per key, reading time from a {@link TimeMeter}. */
  final class Local implements Buckets {
    private final TimeMeter time;
    private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();

    Local(TimeMeter time) {
      this.time = time;
    }

    @Override
    public Bucket bucket(String key, Supplier<BucketConfiguration> configuration, boolean keep) {
      Bucket bucket = buckets.get(key);
      if (bucket != null) {
        return bucket;
      }
      return keep ? buckets.computeIfAbsent(key, k -> create(configuration.get())) : create(configuration.get());
    }

    private LocalBucket create(BucketConfiguration configuration) {
      return Bucket.builder().addLimit(configuration.getBandwidths()[0]).withCustomTimePrecision(time).build();
    }

    @Override
    public void remove(String key) {
      buckets.remove(key);
    }

    @Override
    public boolean remote() {
      return false;
    }

    @Override
    public void close() {
      buckets.clear();
    }

    int size() {
      return buckets.size();
    }
  }

  /** Buckets on any {@link ProxyManager}: JCache, Redis, SQL, ... */
  final class Proxied implements Buckets {
    private final ProxyManager<String> manager;
    private final RemoteBucketBuilder<String> builder;
    private final Async async;

    Proxied(ProxyManager<String> manager) {
      this.manager = manager;
      this.builder = manager.builder();
      if (manager.isAsyncModeSupported()) {
        AsyncProxyManager<String> asyncManager = manager.asAsync();
        this.async = new Async(asyncManager, asyncManager.builder());
      } else {
        this.async = null;
      }
    }

    @Override
    public Bucket bucket(String key, Supplier<BucketConfiguration> configuration, boolean keep) {
      return builder.build(key, configuration);
    }

    @Override
    public void remove(String key) {
      manager.removeProxy(key);
    }

    @Override
    public Async async() {
      return async;
    }

    @Override
    public boolean remote() {
      return true;
    }
  }
}

/**
 * The Redis store: {@link dev.ratelimit.redis.RedisStore} and its builder. Everything else of
 * the package (the scripts' runner, batcher and arguments, the connector) is package-private.
 * Lettuce is required transitively: the builder takes Lettuce's clients, connections and URIs.
 *
 * <p>Lettuce and netty have no module descriptors, only {@code Automatic-Module-Name}s; requiring
 * them is what this module must do, so the lint warnings about automatic modules are off here.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.ratelimit.redis {
  requires transitive dev.ratelimit.core;
  requires transitive lettuce.core;
  requires io.netty.common;
  requires io.netty.buffer;

  exports dev.ratelimit.redis;
}

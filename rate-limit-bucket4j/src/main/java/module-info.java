/**
 * {@link dev.ratelimit.bucket4j.Bucket4jStore}: a rate limit store over any bucket4j
 * {@code ProxyManager}. bucket4j is required transitively: the store is built from its types.
 *
 * <p>bucket4j has no module descriptor, only an {@code Automatic-Module-Name}; requiring it is
 * what this module must do, so the lint warnings about automatic modules are off here.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.ratelimit.bucket4j {
  requires transitive dev.ratelimit.core;
  requires transitive io.github.bucket4j.core;

  exports dev.ratelimit.bucket4j;
}

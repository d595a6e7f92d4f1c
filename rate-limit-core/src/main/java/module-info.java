/**
 * Rate limiting decisions: limits, the {@link dev.ratelimit.RateLimiter}, the store SPI and the
 * embedded in-memory store. The algorithms stay internal.
 */
module dev.ratelimit.core {
  exports dev.ratelimit;
  exports dev.ratelimit.store;
  exports dev.ratelimit.spec;
  exports dev.ratelimit.trace;
}

/**
 * Rate limiting decisions: limits, the {@link dev.ratelimit.limiter.RateLimiter}, the store SPI and the
 * embedded in-memory store. Everything else is internal, exported only to this project's modules:
 * what each kind of limit is ({@code algorithm}: its spec, algorithm, shard split and store
 * arguments), the helpers the stores share ({@code internal}) and the simulator's trace engine.
 */
@SuppressWarnings("module") // the qualified exports name modules that are built after this one
module dev.ratelimit.core {
  exports dev.ratelimit;
  exports dev.ratelimit.store;
  exports dev.ratelimit.limiter;

  // the simulator's trace engine: the CLI's, here because every store's contract test (in this
  // module's test-jar) replays the conformance vectors through it
  exports dev.ratelimit.trace to dev.ratelimit.cli;

  // each qualified export names exactly the project's modules that import the package (the
  // module-path suite, rate-limit-module-tests, fails the build when one is missing)
  exports dev.ratelimit.algorithm to dev.ratelimit.redis, dev.ratelimit.bucket4j;
  exports dev.ratelimit.internal to
      dev.ratelimit.http, dev.ratelimit.redis, dev.ratelimit.bucket4j, dev.ratelimit.cli, dev.ratelimit.spring,
      dev.ratelimit.webflux, dev.ratelimit.spring.ai;
}

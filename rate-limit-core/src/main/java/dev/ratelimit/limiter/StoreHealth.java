package dev.ratelimit.limiter;

import dev.ratelimit.Clock;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.internal.LogText;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether a limiter's store answers. After a failure, requests go straight to their limits'
 * failure policies instead of waiting for the store's timeout each; one request at a time
 * probes the store again every {@code retryMillis}. The switch is logged once each way, not per
 * request. Two volatile reads per request while the store is up.
 */
final class StoreHealth {
  private static final System.Logger LOG = System.getLogger("dev.ratelimit");

  private final Clock clock;
  private final long retryMillis;
  private final AtomicBoolean down = new AtomicBoolean();
  private final AtomicLong probeAt = new AtomicLong();
  private volatile StoreUnavailableException lastFailure;

  StoreHealth(Clock clock, long retryMillis) {
    this.clock = clock;
    this.retryMillis = retryMillis;
  }

  boolean available() {
    return !down.get();
  }

  /** The failure that made the store unavailable, while it is. */
  StoreUnavailableException lastFailure() {
    return lastFailure;
  }

  /** Whether this request should skip the store: it is down, and another request probes it. */
  boolean skipStore() {
    if (!down.get()) {
      return false;
    }
    long now = clock.millis();
    long at = probeAt.get();
    return now < at || !probeAt.compareAndSet(at, now + retryMillis);
  }

  void failed(StoreUnavailableException failure) {
    lastFailure = failure;
    probeAt.set(clock.millis() + retryMillis);
    if (down.compareAndSet(false, true)) {
      LOG.log(Level.WARNING, "rate-limit store unavailable; limits follow their failure policy "
          + "(open, closed or local) until it answers again: {0}", LogText.quoted(failure.getMessage()));
    }
  }

  void succeeded() {
    if (down.get() && down.compareAndSet(true, false)) {
      LOG.log(Level.INFO, "rate-limit store available again; limits decide on it");
    }
  }
}

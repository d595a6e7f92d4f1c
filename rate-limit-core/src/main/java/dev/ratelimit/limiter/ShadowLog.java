package dev.ratelimit.limiter;

import dev.ratelimit.Clock;
import dev.ratelimit.Decision;
import dev.ratelimit.internal.LogText;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Logs a shadow limit's would-be denials at most once a minute, with the key: enough to see who
 * a limit would hit before it is enforced, without a line per request under load. The key comes
 * from the request: quoted and cut ({@link LogText}), it can't forge a line.
 */
final class ShadowLog {
  private static final System.Logger LOG = System.getLogger("dev.ratelimit");
  private static final long EVERY_MILLIS = 60_000;

  private final Clock clock;
  private final AtomicLong next = new AtomicLong(Long.MIN_VALUE);

  ShadowLog(Clock clock) {
    this.clock = clock;
  }

  /** Whether this call may log (one caller per minute wins); for tests. */
  boolean claim() {
    long now = clock.millis();
    long due = next.get();
    return now >= due && next.compareAndSet(due, now + EVERY_MILLIS);
  }

  void wouldDeny(String limit, String key, Decision decision) {
    if (claim()) {
      LOG.log(Level.INFO, "shadow limit ''{0}'' would have denied key {1} (remaining {2}, retry after {3} ms); "
          + "admitted, as mode=shadow never denies; logged at most once a minute per limit",
          limit, LogText.quoted(key), decision.remaining(), decision.retryAfterMillis());
    }
  }
}

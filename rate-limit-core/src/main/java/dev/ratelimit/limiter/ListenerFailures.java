package dev.ratelimit.limiter;

import dev.ratelimit.Clock;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a limiter's {@link dev.ratelimit.DecisionListener} threw, ignored: metrics must never change
 * a decision nor fail a request. Logged at most once a minute per listener (on the limiter's
 * clock), with the stack trace of the failure logged and how many were ignored since the line
 * before: a broken listener would otherwise log on every request, and one line ever would hide a
 * listener that breaks again later.
 */
final class ListenerFailures {
  private static final System.Logger LOG = System.getLogger("dev.ratelimit");
  static final long EVERY_MILLIS = 60_000;

  private final Clock clock;
  private final AtomicLong next = new AtomicLong(Long.MIN_VALUE);
  private final LongAdder ignored = new LongAdder();
  private final LongAdder lines = new LongAdder();

  ListenerFailures(Clock clock) {
    this.clock = clock;
  }

  /**
   * Notes a failure of the listener; true if this call logged it (with {@code failure}, and how
   * many were ignored since the line before, this one included). An interrupt the listener
   * swallowed into an exception is put back on the thread, whose owner may be waiting for it.
   */
  boolean ignored(Throwable failure) {
    if (failure instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    ignored.increment();
    long now = clock.millis();
    long due = next.get();
    if (now < due || !next.compareAndSet(due, now + EVERY_MILLIS)) {
      return false;
    }
    long count = ignored.sumThenReset();
    lines.increment();
    try {
      LOG.log(Level.WARNING, "a DecisionListener threw; the decision stands (" + count + " failure"
          + (count == 1 ? "" : "s") + " of this listener ignored since the last line; logged at most once a minute)",
          failure);
    } catch (Throwable logging) {
      // a logger out of memory or out of stack must not break the decision either
    }
    return true;
  }

  /** The lines logged so far (for tests). */
  long lines() {
    return lines.sum();
  }
}

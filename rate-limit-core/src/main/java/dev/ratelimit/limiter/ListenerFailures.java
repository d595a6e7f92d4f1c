package dev.ratelimit.limiter;

import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link DecisionListener} that throws is ignored: metrics must never change a decision nor
 * fail a request. The first failure is logged with its stack trace, later ones not at all (a
 * broken listener would otherwise log on every request).
 */
final class ListenerFailures {
  private static final System.Logger LOG = System.getLogger("dev.ratelimit");
  private static final AtomicBoolean LOGGED = new AtomicBoolean();

  private ListenerFailures() {}

  static void ignored(RuntimeException failure) {
    if (LOGGED.compareAndSet(false, true)) {
      LOG.log(Level.WARNING, "a DecisionListener threw; ignored (this and later failures)", failure);
    }
  }
}

package dev.ratelimit;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Where decisions read the time: epoch milliseconds that never go back ({@link #system()}, or
 * {@link #coarse()} to read it cheaper and slightly late), or a {@link ManualClock} that tests
 * drive. Read once per decision.
 *
 * @since 1.0
 */
public interface Clock {

  /** Milliseconds since the epoch. */
  long millis();

  /** Blocks for the given time on this clock. */
  default void sleep(long millis) throws InterruptedException {
    long deadline = millis() + millis;
    for (long left = millis; left > 0; left = deadline - millis()) {
      Thread.sleep(left);
    }
  }

  /** Completes once the given time has passed on this clock, without blocking a thread. */
  default CompletionStage<Void> after(long millis) {
    if (millis <= 0) {
      return CompletableFuture.completedFuture(null);
    }
    return CompletableFuture.runAsync(() -> {}, CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS));
  }

  /**
   * The wall-clock time at startup advanced by a monotonic source, so it never goes back even
   * when the system time is changed.
   */
  static Clock system() {
    return SystemClock.INSTANCE;
  }

  /**
   * The {@link #system()} time as a daemon thread reads it every half millisecond: a decision then
   * reads a field instead of the operating system's clock (about 30 ns of a 50-75 ns in-memory
   * decision on a virtual machine). It reads up to a millisecond behind (more while its thread
   * waits for a CPU), never ahead and never back: each limit holds exactly on its timeline, no
   * wait comes out shorter, and some requests are admitted up to that lag later.
   * Opt-in (docs/design.md §2.3): one thread per JVM, started on first use.
   */
  static Clock coarse() {
    return CoarseClock.Holder.INSTANCE;
  }
}

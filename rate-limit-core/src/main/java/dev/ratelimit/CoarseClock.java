package dev.ratelimit;

import java.util.concurrent.locks.LockSupport;

/**
 * The {@linkplain SystemClock system clock} as a daemon thread last read it: it reads it every
 * half millisecond and publishes the time in a field, so a decision reads a field (about 1 ns)
 * instead of calling the operating system's clock (about 30 ns on a virtual machine, a third or
 * more of a decision on a hot key).
 *
 * <p>It is never ahead of the system clock and never goes back, so it only reads a little late:
 * under a millisecond while its thread runs on time, more while the thread waits for a CPU. Each
 * limit holds exactly on this clock's timeline, and waits computed from it are longer, never
 * shorter; against real time a lag that varies moves at most {@code rate × lag} units across a
 * window's edge (docs/design.md §2.3).
 */
final class CoarseClock implements Clock {
  /** Half a millisecond: the time read is then at most one whole millisecond behind. */
  private static final long TICK_NANOS = 500_000;

  /** Started on first use: an application that never asks for it has no thread. */
  static final class Holder {
    static final CoarseClock INSTANCE = start();

    private Holder() {}
  }

  private volatile long now = SystemClock.INSTANCE.millis();

  private CoarseClock() {}

  private static CoarseClock start() {
    CoarseClock clock = new CoarseClock();
    Thread ticker = new Thread(clock::tick, "rate-limit-coarse-clock");
    ticker.setDaemon(true);
    ticker.start();
    return clock;
  }

  private void tick() {
    for (;;) {
      LockSupport.parkNanos(TICK_NANOS);
      now = SystemClock.INSTANCE.millis(); // one writer, and the system clock never goes back
    }
  }

  @Override
  public long millis() {
    return now;
  }

  @Override
  public String toString() {
    return "Clock.coarse()";
  }
}

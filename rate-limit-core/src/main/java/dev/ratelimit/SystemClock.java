package dev.ratelimit;

/** Epoch milliseconds read at class load, advanced by {@link System#nanoTime()}. */
final class SystemClock implements Clock {
  static final SystemClock INSTANCE = new SystemClock();

  private final long startMillis = System.currentTimeMillis();
  private final long startNanos = System.nanoTime();

  private SystemClock() {}

  @Override
  public long millis() {
    return startMillis + (System.nanoTime() - startNanos) / 1_000_000;
  }

  @Override
  public String toString() {
    return "Clock.system()";
  }
}

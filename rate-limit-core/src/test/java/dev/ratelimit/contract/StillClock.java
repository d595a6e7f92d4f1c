package dev.ratelimit.contract;

import dev.ratelimit.Clock;

/**
 * Time that stands still, with waits that really park the thread: every decision is made at the
 * same millisecond, so a concurrency test's counts do not depend on how its threads are
 * scheduled, while its threads block as they would on the system clock.
 */
public final class StillClock implements Clock {
  private final long millis;

  public StillClock(long millis) {
    this.millis = millis;
  }

  @Override
  public long millis() {
    return millis;
  }

  @Override
  public void sleep(long millis) throws InterruptedException {
    Thread.sleep(millis);
  }
}

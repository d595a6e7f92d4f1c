package dev.ratelimit;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when told to, for tests and the simulator. It may be set backwards.
 * Sleeping on it advances it, so code that waits for its turn runs at once and tests never sleep.
 *
 * @since 1.0
 */
public final class ManualClock implements Clock {
  private final AtomicLong millis;

  /** Starts at the epoch. */
  public ManualClock() {
    this(0);
  }

  public ManualClock(long epochMillis) {
    millis = new AtomicLong(epochMillis);
  }

  public static ManualClock at(Instant instant) {
    return new ManualClock(instant.toEpochMilli());
  }

  @Override
  public long millis() {
    return millis.get();
  }

  public ManualClock advance(Duration duration) {
    return advanceMillis(duration.toMillis());
  }

  public ManualClock advanceMillis(long delta) {
    millis.addAndGet(delta);
    return this;
  }

  public ManualClock set(Instant instant) {
    return setMillis(instant.toEpochMilli());
  }

  public ManualClock setMillis(long epochMillis) {
    millis.set(epochMillis);
    return this;
  }

  @Override
  public void sleep(long millis) {
    if (millis > 0) {
      advanceMillis(millis);
    }
  }

  @Override
  public CompletionStage<Void> after(long millis) {
    sleep(millis);
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public String toString() {
    return "ManualClock[" + Instant.ofEpochMilli(millis.get()) + "]";
  }
}

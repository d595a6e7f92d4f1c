package dev.ratelimit.bucket4j;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs what bucket4j schedules at once. bucket4j's asynchronous reservation
 * ({@code asScheduler().tryConsume}) completes its future only after the reservation's wait, on a
 * scheduler; a reservation here only reserves and says how long to wait (the caller waits, on its
 * own clock), so the completion runs without delay. Only {@code schedule(Runnable, ...)} is used.
 */
final class NoWaitScheduler extends AbstractExecutorService implements ScheduledExecutorService {
  static final NoWaitScheduler INSTANCE = new NoWaitScheduler();

  private NoWaitScheduler() {}

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    command.run();
    return Done.INSTANCE;
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException("only schedule(Runnable, ...) is supported");
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
    throw new UnsupportedOperationException("only schedule(Runnable, ...) is supported");
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException("only schedule(Runnable, ...) is supported");
  }

  @Override
  public void execute(Runnable command) {
    command.run();
  }

  @Override
  public void shutdown() {}

  @Override
  public List<Runnable> shutdownNow() {
    return List.of();
  }

  @Override
  public boolean isShutdown() {
    return false;
  }

  @Override
  public boolean isTerminated() {
    return false;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return false;
  }

  /** A task that has run. */
  private static final class Done implements ScheduledFuture<Object> {
    static final Done INSTANCE = new Done();

    @Override
    public long getDelay(TimeUnit unit) {
      return 0;
    }

    @Override
    public int compareTo(Delayed other) {
      return Long.compare(0, other.getDelay(TimeUnit.NANOSECONDS));
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      return false;
    }

    @Override
    public boolean isCancelled() {
      return false;
    }

    @Override
    public boolean isDone() {
      return true;
    }

    @Override
    public Object get() {
      return null;
    }

    @Override
    public Object get(long timeout, TimeUnit unit) {
      return null;
    }
  }
}

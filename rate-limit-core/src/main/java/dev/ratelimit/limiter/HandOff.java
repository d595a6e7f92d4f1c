package dev.ratelimit.limiter;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * One daemon thread that runs what is handed to it, in order: started when something comes,
 * ending after {@value #IDLE_SECONDS} s with nothing to do, or once closed and drained. Handing
 * off takes no lock and never waits (a store's event loop hands off; under BlockHound a thread
 * parking there is an error), and the tasks waiting can be taken by other threads
 * ({@link #poll}).
 */
final class HandOff implements Executor {
  private static final long IDLE_SECONDS = 10;

  private final String name;
  private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final AtomicInteger size = new AtomicInteger();
  /** The thread running tasks, or {@code null} while none is. */
  private final AtomicReference<Thread> worker = new AtomicReference<>();
  private volatile boolean closed;

  HandOff(String name) {
    this.name = name;
  }

  @Override
  public void execute(Runnable task) {
    if (closed) {
      task.run(); // nothing runs tasks any more: here, where the decision completes
      return;
    }
    tasks.add(task);
    size.incrementAndGet();
    Thread running = worker.get();
    if (running != null) {
      LockSupport.unpark(running);
      return;
    }
    Thread started = new Thread(this::work, name);
    started.setDaemon(true);
    if (worker.compareAndSet(null, started)) {
      started.start();
    } else {
      LockSupport.unpark(worker.get()); // another caller started one just now (or it ends and takes over again)
    }
  }

  /**
   * Runs a task. Those handed off are CompletableFutures' tasks, which keep whatever their function
   * throws in their stage; anything that escapes all the same must not end the thread that runs
   * them, or the tasks after it would wait forever.
   */
  static void run(Runnable task) {
    try {
      task.run();
    } catch (Throwable escaped) {
      // a CompletableFuture's task keeps its function's failure in its stage; nobody else to tell
    }
  }

  /** A waiting task, taken off the queue (by this thread or a caller helping), or {@code null}. */
  Runnable poll() {
    Runnable task = tasks.poll();
    if (task != null) {
      size.decrementAndGet();
    }
    return task;
  }

  /** How many tasks wait. */
  int size() {
    return size.get();
  }

  /** Lets the thread end once it has run what it holds; later tasks run where they are handed off. */
  void close() {
    closed = true;
    Thread running = worker.get();
    if (running != null) {
      LockSupport.unpark(running);
    }
  }

  private void work() {
    Thread self = Thread.currentThread();
    for (;;) {
      for (Runnable task = poll(); task != null; task = poll()) {
        run(task);
      }
      if (!closed) {
        LockSupport.parkNanos(this, TimeUnit.SECONDS.toNanos(IDLE_SECONDS));
        if (!tasks.isEmpty()) {
          continue;
        }
      }
      // nothing to do: end, unless a task came as this thread was leaving and no other thread took over
      worker.compareAndSet(self, null);
      if (tasks.isEmpty() || !worker.compareAndSet(null, self)) {
        return;
      }
    }
  }
}

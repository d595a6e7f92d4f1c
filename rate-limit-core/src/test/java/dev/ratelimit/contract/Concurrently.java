package dev.ratelimit.contract;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Runs tasks on threads released together, for concurrency tests with exact counts. */
public final class Concurrently {
  private Concurrently() {}

  /** Runs {@code task} on {@code threads} threads at once; waits for all and rethrows the first failure. */
  public static void run(int threads, Callable<?> task) throws Exception {
    List<Callable<?>> tasks = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      tasks.add(task);
    }
    runAll(tasks);
  }

  /** Runs each task on its own thread, all released together; waits for all and rethrows the first failure. */
  public static void runAll(List<? extends Callable<?>> tasks) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (Callable<?> task : tasks) {
        done.add(pool.submit(() -> {
          start.await();
          return task.call();
        }));
      }
      start.countDown();
      for (Future<?> future : done) {
        future.get(5, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}

package dev.ratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.contract.Concurrently;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The listener's thread: every task handed off runs once, in order, whatever one of them throws. */
class HandOffTest {
  private final HandOff handOff = new HandOff("hand-off-test");

  @AfterEach
  void close() {
    handOff.close();
  }

  private void drained() throws InterruptedException {
    CountDownLatch done = new CountDownLatch(1);
    handOff.execute(done::countDown);
    assertThat(done.await(10, TimeUnit.SECONDS)).as("the thread ran what came before").isTrue();
  }

  @Test
  void tasksRun_inTheOrderHandedOff_onOneThread() throws Exception {
    List<Integer> ran = Collections.synchronizedList(new ArrayList<>());
    Set<String> threads = ConcurrentHashMap.newKeySet();
    for (int i = 0; i < 1000; i++) {
      int task = i;
      handOff.execute(() -> {
        ran.add(task);
        threads.add(Thread.currentThread().getName());
      });
    }
    drained();
    assertThat(ran).hasSize(1000).isSorted();
    assertThat(threads).containsExactly("hand-off-test");
  }

  @Test
  void aTaskThatThrows_stopsNoneAfterIt() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    handOff.execute(() -> {
      throw new StackOverflowError("escaped a task");
    });
    handOff.execute(ran::incrementAndGet);
    handOff.execute(() -> {
      throw new IllegalStateException("escaped another");
    });
    handOff.execute(ran::incrementAndGet);
    drained();
    assertThat(ran.get()).isEqualTo(2);
  }

  @Test
  void manyThreadsHandingOffAtOnce_eachTaskRunsOnce() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    int threads = 8;
    int each = 20_000;
    Concurrently.run(threads, () -> {
      for (int i = 0; i < each; i++) {
        handOff.execute(ran::incrementAndGet);
      }
      return null;
    });
    drained();
    assertThat(ran.get()).isEqualTo(threads * each);
    assertThat(handOff.size()).isZero();
  }

  @Test
  void closed_runsWhatItHeld_thenTasksRunWhereTheyAreHandedOff() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch heldRan = new CountDownLatch(1);
    handOff.execute(() -> await(release));
    handOff.execute(heldRan::countDown);
    handOff.close();
    String[] where = new String[1];
    handOff.execute(() -> where[0] = Thread.currentThread().getName());
    assertThat(where[0]).as("run on the caller's thread once closed").isEqualTo(Thread.currentThread().getName());
    release.countDown();
    assertThat(heldRan.await(10, TimeUnit.SECONDS)).as("what it held when it closed still runs").isTrue();
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

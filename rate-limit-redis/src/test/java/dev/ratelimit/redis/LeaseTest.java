package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A node's units of one key: spent by many threads, never below 0, never after retiring. */
class LeaseTest {

  @Test
  void manyThreadsSpend_exactlyTheUnitsAdded_whileOneAddsAndOneRetires() throws Exception {
    Lease lease = new Lease();
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Integer>> spenders = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        spenders.add(pool.submit(() -> {
          start.await();
          int spent = 0;
          for (int i = 0; i < 20_000; i++) {
            if (lease.spend(1) >= 0) {
              spent++;
            }
          }
          return spent;
        }));
      }
      Future<?> adder = pool.submit(() -> {
        start.await();
        for (int i = 0; i < 1000; i++) {
          assertThat(lease.add(50, 0, 0)).isTrue();
        }
        return null;
      });
      start.countDown();
      adder.get(1, TimeUnit.MINUTES);
      int spent = 0;
      for (Future<Integer> spender : spenders) {
        spent += spender.get(1, TimeUnit.MINUTES);
      }
      double left = lease.retire();
      assertThat(spent + left).isEqualTo(50_000);
      assertThat(left).isGreaterThanOrEqualTo(0);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aRetiredLease_spendsNothing_andRefusesUnits() {
    Lease lease = new Lease();
    assertThat(lease.spend(0)).isEqualTo(0);
    assertThat(lease.spend(1)).isEqualTo(-1);
    assertThat(lease.add(2.5, 10, 100)).isTrue();
    assertThat(lease.spend(1)).isEqualTo(1.5);
    assertThat(lease.spend(2)).isEqualTo(-1); // never below 0
    assertThat(lease.admitted(1.5, 20).remaining()).isEqualTo(11.5);
    assertThat(lease.retire()).isEqualTo(1.5);
    assertThat(lease.retired()).isTrue();
    assertThat(lease.spend(0)).isEqualTo(-1);
    assertThat(lease.add(5, 0, 0)).isFalse();
    assertThat(lease.retire()).isEqualTo(0);
  }
}

package dev.ratelimit.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NumberTextTest {

  @ParameterizedTest
  @ValueSource(longs = {0, 1, 9, 10, 99, 100, 999, 1000, 1022, 1023, 1024, 1025, 65_536, 1_700_000_006L, -1, -1024,
      Long.MAX_VALUE, Long.MIN_VALUE})
  void of_isLongToString(long n) {
    assertThat(NumberText.of(n)).isEqualTo(Long.toString(n));
    assertThat(NumberText.of(n)).isEqualTo(Long.toString(n)); // and again, once kept
  }

  @Test
  void of_keepsEverySmallNumberOnceAndNoOther() {
    for (long n = 0; n < NumberText.KEPT; n++) {
      assertThat(NumberText.of(n)).isEqualTo(Long.toString(n)).isSameAs(NumberText.of(n));
    }
    assertThat(NumberText.of(NumberText.KEPT)).isNotSameAs(NumberText.of(NumberText.KEPT));
    assertThat(NumberText.of(-1)).isNotSameAs(NumberText.of(-1));
  }

  /** Threads racing to make the same numbers' text all get the right text. */
  @Test
  void of_racingThreadsAllGetTheRightText() throws Exception {
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Integer>> wrong = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        wrong.add(pool.submit(() -> {
          start.await();
          int bad = 0;
          for (int round = 0; round < 20; round++) {
            for (long n = NumberText.KEPT + 100L; n >= -100; n--) {
              bad += NumberText.of(n).equals(Long.toString(n)) ? 0 : 1;
            }
          }
          return bad;
        }));
      }
      start.countDown();
      for (Future<Integer> count : wrong) {
        assertThat(count.get()).isZero();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}

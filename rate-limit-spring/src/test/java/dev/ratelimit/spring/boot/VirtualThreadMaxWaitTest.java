package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ratelimit.Clock;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.contract.PinnedThreads;
import dev.ratelimit.contract.StillClock;
import dev.ratelimit.contract.VirtualThreads;
import dev.ratelimit.spring.RateLimited;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code @RateLimited(maxWait = ...)} called from 10,000 virtual threads at once, through Boot's
 * auto-configuration: exact counts, every thread returns, none pinned to its carrier while it
 * waits (JFR). On Java 21 and later: the build runs it on Java 25 (CONTRIBUTING.md).
 */
class VirtualThreadMaxWaitTest {
  private static final int THREADS = 10_000;

  public static class Exports {
    @RateLimited(name = "exports", key = "#user", maxWait = "500ms")
    public String export(String user) {
      return "exported for " + user;
    }
  }

  @Test
  void maxWait_onVirtualThreads_admitsCapacityPlusWhatRefillsWithinTheWait_andNeverPins() {
    assumeTrue(VirtualThreads.available(), "virtual threads: Java 21 or later");
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
        .withPropertyValues("ratelimit.limits.exports=token-bucket rate=1000 period=1s capacity=100")
        .withBean(Clock.class, () -> new StillClock(1_767_225_600_000L))
        .withBean(Exports.class)
        .run(context -> {
          Exports exports = context.getBean(Exports.class);
          exports.export("warm-up"); // classes loaded and the proxy's first call made before the threads start
          AtomicInteger admitted = new AtomicInteger();
          AtomicInteger denied = new AtomicInteger();
          List<String> pinned = PinnedThreads.during("dev.ratelimit", () -> {
            CountDownLatch start = new CountDownLatch(1);
            ExecutorService threads = VirtualThreads.executor();
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
              done.add(threads.submit(() -> {
                start.await();
                try {
                  exports.export("ann");
                  admitted.incrementAndGet();
                } catch (RateLimitExceededException e) {
                  denied.incrementAndGet();
                }
                return null;
              }));
            }
            start.countDown();
            threads.shutdown();
            assertThat(threads.awaitTermination(1, TimeUnit.MINUTES)).as("no thread stuck").isTrue();
            for (Future<?> future : done) {
              future.get();
            }
            return null;
          });
          // design §2.4: one unit per millisecond queues behind the capacity; a longer wait than maxWait is a denial
          assertThat(admitted.get()).isEqualTo(100 + 500);
          assertThat(denied.get()).isEqualTo(THREADS - 600);
          assertThat(pinned).as("pinned while waiting").isEmpty();
        });
  }
}

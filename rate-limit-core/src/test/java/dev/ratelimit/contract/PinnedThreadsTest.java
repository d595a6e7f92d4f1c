package dev.ratelimit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The pinning check sees a pinning when there is one: the virtual-thread tests' "never pins" can fail. */
class PinnedThreadsTest {

  /** A class whose initializer blocks: a virtual thread initializing it is pinned (as on every JDK so far). */
  static final class SlowToInitialize {
    static {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    static void touch() {}
  }

  @Test
  void during_seesAVirtualThreadBlockedInAClassInitializer() throws Exception {
    assumeTrue(VirtualThreads.available(), "virtual threads: Java 21 or later");
    List<String> pinned = PinnedThreads.during("dev.ratelimit.contract", () -> {
      ExecutorService thread = VirtualThreads.executor();
      thread.submit(SlowToInitialize::touch).get();
      thread.shutdown();
      return thread.awaitTermination(1, TimeUnit.MINUTES);
    });
    assertThat(pinned).anyMatch(stack -> stack.contains("SlowToInitialize.<clinit>"));
  }
}

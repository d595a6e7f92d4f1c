package dev.ratelimit.contract;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Virtual threads for tests compiled for Java 17: {@link #available()} on Java 21 and later, where
 * {@link #executor()} gives one virtual thread per task. Tests that need them assume
 * {@code available()}; the build runs them on the newer JDK too (CONTRIBUTING.md).
 */
public final class VirtualThreads {
  private VirtualThreads() {}

  public static boolean available() {
    return Runtime.version().feature() >= 21;
  }

  /** {@code Executors.newVirtualThreadPerTaskExecutor()}, found by reflection so that this compiles for Java 17. */
  public static ExecutorService executor() {
    try {
      return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("virtual threads need Java 21 or later; this is " + Runtime.version(), e);
    }
  }
}

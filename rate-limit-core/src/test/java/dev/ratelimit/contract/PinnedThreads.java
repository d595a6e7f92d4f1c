package dev.ratelimit.contract;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * The virtual threads pinned to their carrier while a task runs, as JFR sees them
 * ({@code jdk.VirtualThreadPinned}, every one however short), for tests that claim a blocking
 * call parks its virtual thread. Needs Java 21 or later ({@link VirtualThreads#available()}).
 */
public final class PinnedThreads {
  private PinnedThreads() {}

  /**
   * Runs the task and answers the stacks of the pinnings whose stack has a frame of
   * {@code package} (the code under test; the JDK's own class loading may pin briefly too).
   */
  public static List<String> during(String pkg, Callable<?> task) throws Exception {
    Path file = Files.createTempFile("pinned", ".jfr");
    try (Recording recording = new Recording()) {
      recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
      recording.start();
      // a recording makes the JDK trace throwables, a class initialized on the first throwable
      // made after it starts: virtual threads racing to make theirs then wait for that class,
      // pinned. Made here, on this thread, it is no pinning of the task's.
      new Throwable().fillInStackTrace();
      task.call();
      recording.stop();
      recording.dump(file);
      return RecordingFile.readAllEvents(file).stream()
          .map(PinnedThreads::stack)
          .filter(stack -> stack.contains(pkg))
          .toList();
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private static String stack(RecordedEvent event) {
    if (event.getStackTrace() == null) {
      return "";
    }
    return event.getStackTrace().getFrames().stream().map(PinnedThreads::frame).collect(Collectors.joining("\n  at "));
  }

  private static String frame(RecordedFrame frame) {
    return frame.getMethod().getType().getName() + "." + frame.getMethod().getName() + ":" + frame.getLineNumber();
  }
}

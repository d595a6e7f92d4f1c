package dev.ratelimit.servlet.it;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The signals between a test and a request it holds in the servlet ({@link HeldServlet}), by the
 * request's {@code X-Call} header: the servlet entered (the handler started), the test let it
 * answer, the request finished ({@link FinishedSignal}: the rate limit filter settled it). Each
 * wait has a guard against a hang, not a timing: the signal comes as soon as the other side runs.
 */
public final class Held {
  private static final long GUARD_SECONDS = 30;
  private static final Map<String, Held> CALLS = new ConcurrentHashMap<>();

  private final String id;
  private final CountDownLatch entered = new CountDownLatch(1);
  private final CountDownLatch released = new CountDownLatch(1);
  private final CountDownLatch finished = new CountDownLatch(1);

  private Held(String id) {
    this.id = id;
  }

  /** A call the test is about to send with {@code X-Call: id}. */
  static Held expect(String id) {
    Held held = new Held(id);
    CALLS.put(id, held);
    return held;
  }

  /** The call of a request, or null for a request the test holds nothing of. */
  static Held of(String id) {
    return id == null ? null : CALLS.get(id);
  }

  void entered() {
    entered.countDown();
  }

  void release() {
    released.countDown();
  }

  void finished() {
    finished.countDown();
    CALLS.remove(id);
  }

  void awaitEntered() throws InterruptedException {
    await(entered, "the servlet was never entered (was the request denied?)");
  }

  void awaitRelease() throws InterruptedException {
    await(released, "the test never released the servlet");
  }

  void awaitFinished() throws InterruptedException {
    await(finished, "the request never finished");
  }

  private void await(CountDownLatch latch, String what) throws InterruptedException {
    if (!latch.await(GUARD_SECONDS, TimeUnit.SECONDS)) {
      throw new AssertionError("call " + id + ": " + what);
    }
  }
}

package dev.ratelimit.servlet.it;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A slow login check, which signals that it started and waits until the test lets it go, then
 * answers 401: {@code /sync} flushing the answer, so that writing it to a client gone fails in
 * the servlet; {@code /async} from another thread after going async, an answer the container
 * sends once the servlet completed; {@code /async-flushed} flushing it from that thread. An async
 * request ends once, by the application's thread or by the container's {@code onError}, never
 * touched after (Tomcat hands a request's objects to the next one once it completed). {@code /now}
 * answers 200 at once.
 */
public class HeldServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;
  private static final byte[] WRONG = "wrong password".getBytes(StandardCharsets.US_ASCII);

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
    Held held = Held.of(request.getHeader("X-Call"));
    switch (request.getPathInfo()) {
      case "/sync" -> {
        awaitRelease(held);
        answer(response);
        response.flushBuffer();
      }
      case "/async", "/async-flushed" -> {
        AsyncContext async = request.startAsync();
        async.setTimeout(0);
        OneEnd end = new OneEnd(async, request.getPathInfo().equals("/async-flushed"));
        async.addListener(end);
        async.start(() -> {
          awaitRelease(held);
          end.answer();
        });
      }
      default -> response.getWriter().write("now");
    }
  }

  private static void awaitRelease(Held held) {
    held.entered();
    try {
      held.awaitRelease();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void answer(HttpServletResponse response) throws IOException {
    response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
    response.setContentType("text/plain");
    response.getOutputStream().write(WRONG);
  }

  /**
   * Ends an async request once: the application's answer, or the container's report of an error
   * (the client went away), whichever comes first; the other then leaves the request alone.
   */
  private static final class OneEnd implements AsyncListener {
    private final AsyncContext async;
    private final boolean flush;
    private boolean ended;

    OneEnd(AsyncContext async, boolean flush) {
      this.async = async;
      this.flush = flush;
    }

    synchronized void answer() {
      if (ended) {
        return;
      }
      try {
        HeldServlet.answer((HttpServletResponse) async.getResponse());
        if (flush) {
          async.getResponse().flushBuffer();
        }
        ended = true;
        async.complete();
      } catch (IOException clientGone) {
        // the container reports it to onError, which ends the request
      }
    }

    @Override
    public synchronized void onError(AsyncEvent event) {
      if (!ended) {
        ended = true;
        async.complete();
      }
    }

    @Override
    public void onComplete(AsyncEvent event) {}

    @Override
    public void onTimeout(AsyncEvent event) {}

    @Override
    public void onStartAsync(AsyncEvent event) {}
  }
}

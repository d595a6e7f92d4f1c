package dev.ratelimit.servlet.it;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Answers with the status in its path: {@code /status/401}; {@code /status/async/401} sets it
 * from another thread after going async; {@code /status/committed/401} commits the response
 * (flushes) before returning.
 */
public class StatusServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  @Override
  protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
    String[] parts = request.getPathInfo().substring(1).split("/");
    int status = Integer.parseInt(parts[parts.length - 1]);
    if (parts[0].equals("async")) {
      AsyncContext async = request.startAsync();
      async.start(() -> {
        try {
          answer((HttpServletResponse) async.getResponse(), status);
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        } finally {
          async.complete();
        }
      });
      return;
    }
    answer(response, status);
    if (parts[0].equals("committed")) {
      response.flushBuffer();
    }
  }

  private static void answer(HttpServletResponse response, int status) throws IOException {
    response.setStatus(status);
    response.setContentType("text/plain");
    response.getWriter().write("status " + status);
  }
}

package dev.ratelimit.servlet.it;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * An application that states what each request cost in {@code X-Tokens}: one value per
 * {@code tokens} query parameter (none without), or {@code huge=N} characters of digits; answering
 * with {@code status} (default 200). How it answers is the path's second segment
 * ({@code /stated/sync/x}): {@code sync}; {@code async} from another thread after going async,
 * through the response it was given; {@code around} through the container's own response, which
 * {@code startAsync()} hands out; {@code flushed} committing the response before it returns; and
 * {@code int}, setting the header with {@code setIntHeader}.
 */
public class CostServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  @Override
  protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
    String[] parts = request.getServletPath().substring(1).split("/");
    String mode = parts.length > 1 ? parts[1] : "sync";
    switch (mode) {
      case "async", "around" -> {
        AsyncContext async = request.startAsync();
        async.start(() -> {
          try {
            answer(request, mode.equals("async") ? response : (HttpServletResponse) async.getResponse());
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          } finally {
            async.complete();
          }
        });
      }
      case "flushed" -> {
        answer(request, response);
        response.flushBuffer();
      }
      default -> answer(request, response);
    }
  }

  private static void answer(HttpServletRequest request, HttpServletResponse response) throws IOException {
    String status = request.getParameter("status");
    response.setStatus(status == null ? 200 : Integer.parseInt(status));
    String[] tokens = request.getParameterValues("tokens");
    if (tokens != null) {
      for (String value : tokens) {
        if (request.getServletPath().contains("/int/")) {
          response.setIntHeader("X-Tokens", Integer.parseInt(value));
        } else {
          response.addHeader("X-Tokens", value);
        }
      }
    }
    String huge = request.getParameter("huge");
    if (huge != null) {
      response.setHeader("X-Tokens", "1".repeat(Integer.parseInt(huge)));
    }
    response.setContentType("text/plain");
    response.getWriter().write("cost stated");
  }
}

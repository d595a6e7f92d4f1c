package dev.ratelimit.servlet;

import dev.ratelimit.http.Problem;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Answers a refused request. The filter has already set the rate limit headers and
 * {@code Retry-After}; the default writes the status and an RFC 9457
 * {@code application/problem+json} body.
 *
 * @since 1.0
 */
@FunctionalInterface
public interface RejectionHandler {

  void reject(HttpServletRequest request, HttpServletResponse response, Rejection rejection)
      throws IOException, ServletException;

  /** The status of the rejection and its problem+json body. */
  static RejectionHandler problemJson() {
    return (request, response, rejection) -> {
      byte[] body = rejection.toJson(request.getRequestURI()).getBytes(StandardCharsets.UTF_8);
      try {
        new ServletResponseView(response).refuse(rejection.status(), Problem.CONTENT_TYPE, body);
      } catch (UncheckedIOException e) {
        throw e.getCause();
      }
    };
  }
}

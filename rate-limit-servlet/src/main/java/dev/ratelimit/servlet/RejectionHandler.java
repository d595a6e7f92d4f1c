package dev.ratelimit.servlet;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Answers a refused request. The filter has already set the rate limit headers and
 * {@code Retry-After}; the default writes the status and an RFC 9457
 * {@code application/problem+json} body.
 */
@FunctionalInterface
public interface RejectionHandler {

  void reject(HttpServletRequest request, HttpServletResponse response, Rejection rejection)
      throws IOException, ServletException;

  /** The status of the rejection and its problem+json body. */
  static RejectionHandler problemJson() {
    return (request, response, rejection) -> {
      byte[] body = rejection.toJson(request.getRequestURI()).getBytes(StandardCharsets.UTF_8);
      response.setStatus(rejection.status());
      // JSON is UTF-8 by definition (RFC 8259); no charset parameter, as RFC 9457 shows it
      response.setContentType("application/problem+json");
      response.setContentLength(body.length);
      try (OutputStream out = response.getOutputStream()) {
        out.write(body);
      }
    };
  }
}

package dev.ratelimit.spring.boot;

import dev.ratelimit.http.Problem;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * An RFC 9457 {@code application/problem+json} answer written by Spring MVC's exception resolvers:
 * the 400 for a bad count, and the 429 and 503 when rate-limit-servlet (which writes them
 * elsewhere) is not on the classpath. Members are strings or numbers.
 */
final class ProblemJson {
  private ProblemJson() {}

  static void write(HttpServletResponse response, int status, String type, String title, String detail,
      String instance, Map<String, ?> members) throws IOException {
    write(response, status, Problem.json(status, type, title, detail, instance, members));
  }

  /** A refusal every front end words alike (§6.5): its {@code Retry-After} and its body. */
  static void write(HttpServletResponse response, Problem problem, String instance) throws IOException {
    response.setHeader("Retry-After", Long.toString(problem.retryAfterSeconds()));
    write(response, problem.status(), problem.toJson(instance));
  }

  private static void write(HttpServletResponse response, int status, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    response.setStatus(status);
    response.setContentType(Problem.CONTENT_TYPE);
    response.setContentLength(body.length);
    try (OutputStream out = response.getOutputStream()) {
      out.write(body);
    }
  }
}

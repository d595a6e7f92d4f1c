package dev.ratelimit.spring.boot;

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
    StringBuilder json = new StringBuilder(256).append('{');
    string(json, "type", type).append(',');
    string(json, "title", title).append(',');
    json.append("\"status\":").append(status).append(',');
    string(json, "detail", detail).append(',');
    string(json, "instance", instance == null ? "" : instance);
    members.forEach((name, value) -> {
      json.append(',');
      if (value instanceof Number number) {
        quoted(json, name).append(':').append(number);
      } else {
        string(json, name, String.valueOf(value));
      }
    });
    byte[] body = json.append('}').toString().getBytes(StandardCharsets.UTF_8);
    response.setStatus(status);
    response.setContentType("application/problem+json");
    response.setContentLength(body.length);
    try (OutputStream out = response.getOutputStream()) {
      out.write(body);
    }
  }

  private static StringBuilder string(StringBuilder json, String name, String value) {
    return quoted(quoted(json, name).append(':'), value);
  }

  private static StringBuilder quoted(StringBuilder json, String value) {
    json.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '"' || c == '\\') {
        json.append('\\').append(c);
      } else if (c < 0x20) {
        json.append(String.format("\\u%04x", (int) c));
      } else {
        json.append(c);
      }
    }
    return json.append('"');
  }
}

package dev.ratelimit.spring.boot;

import dev.ratelimit.Clock;
import dev.ratelimit.spring.RateLimitCountException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The 400 for a {@link RateLimitCountException}: a problem+json body whose detail names the limit,
 * the count and the bound, with {@code limit}, {@code count} and {@code maxCount} members. The
 * count comes from the client, so the log gets one line per limit and minute at most (a client
 * could otherwise fill it), and no stack trace.
 */
final class BadCountAnswer {
  private static final Log LOG = LogFactory.getLog(BadCountAnswer.class);
  static final long LOG_INTERVAL_MILLIS = 60_000;

  private final Clock clock;
  /** When each limit last logged; as many entries as there are configured limits. */
  private final Map<String, Long> logged = new ConcurrentHashMap<>();

  BadCountAnswer(Clock clock) {
    this.clock = clock;
  }

  void answer(HttpServletRequest request, HttpServletResponse response, RateLimitCountException bad)
      throws IOException {
    if (shouldLog(bad.limitName())) {
      LOG.warn("Refused with 400 (at most one line per limit and minute): " + bad.getMessage());
    }
    ProblemJson.write(response, 400, "about:blank", "Bad Request", bad.detail(), request.getRequestURI(),
        bad.problemMembers());
  }

  /** True for the first bad count of a limit in each minute. */
  boolean shouldLog(String limit) {
    long now = clock.millis();
    boolean[] log = {false};
    logged.compute(limit, (name, last) -> {
      if (last == null || now - last >= LOG_INTERVAL_MILLIS) {
        log[0] = true;
        return now;
      }
      return last;
    });
    return log[0];
  }
}

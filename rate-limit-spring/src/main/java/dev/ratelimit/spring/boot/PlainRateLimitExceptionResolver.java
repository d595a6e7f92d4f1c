package dev.ratelimit.spring.boot;

import dev.ratelimit.Clock;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.http.Problem;
import dev.ratelimit.http.RateLimitHeaders;
import dev.ratelimit.spring.RateLimitBusyException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;

/**
 * {@link RateLimitExceptionResolver} for Spring MVC applications without rate-limit-servlet, which
 * writes the rate limit headers: a denial by {@code @RateLimited} is still a 429 with
 * {@code Retry-After} and the problem body of docs/design.md §6 (not a 500), a closed store or a busy one a 503, a
 * bad count a 400.
 */
final class PlainRateLimitExceptionResolver extends AbstractRateLimitExceptionResolver {
  PlainRateLimitExceptionResolver(Clock clock) {
    super(clock);
  }

  @Override
  void rateLimited(HttpServletRequest request, HttpServletResponse response, RateLimitExceededException exceeded)
      throws IOException {
    // whole seconds, at least 1, never earlier than the decision's wait
    long retryAfter = Math.max(1, RateLimitHeaders.seconds(exceeded.decision().retryAfterMillis()));
    ProblemJson.write(response, Problem.rateLimited(exceeded.limitName(), retryAfter), request.getRequestURI());
  }

  @Override
  void busy(HttpServletRequest request, HttpServletResponse response, RateLimitBusyException busy) throws IOException {
    ProblemJson.write(response, Problem.busy(busy.limitName(), 1), request.getRequestURI());
  }

  @Override
  void storeUnavailable(HttpServletRequest request, HttpServletResponse response) throws IOException {
    response.setHeader("Retry-After", "1");
    ProblemJson.write(response, 503, "about:blank", "Service Unavailable",
        "Rate limit can't be checked: its store is unavailable; retry in 1 s", request.getRequestURI(),
        Map.of("retryAfter", 1));
  }
}

package dev.ratelimit.spring.boot;

import dev.ratelimit.Clock;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.spring.RateLimitCountException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * {@link RateLimitExceptionResolver} for Spring MVC applications without rate-limit-servlet, which
 * writes the rate limit headers: a denial by {@code @RateLimited} is still a 429 with
 * {@code Retry-After} and the problem body of docs/design.md §6 (not a 500), a closed store a 503, a
 * bad count a 400.
 */
final class PlainRateLimitExceptionResolver implements HandlerExceptionResolver, Ordered {
  private static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";

  private final BadCountAnswer badCounts;

  PlainRateLimitExceptionResolver(Clock clock) {
    this.badCounts = new BadCountAnswer(clock);
  }

  @Override
  public ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response, Object handler,
      Exception exception) {
    try {
      if (exception instanceof RateLimitExceededException exceeded) {
        // whole seconds, at least 1, never earlier than the decision's wait
        long retryAfter = Math.max(1, (exceeded.decision().retryAfterMillis() + 999) / 1000);
        response.setHeader("Retry-After", Long.toString(retryAfter));
        ProblemJson.write(response, 429, QUOTA_EXCEEDED, "Too Many Requests", "Rate limit '"
            + exceeded.limitName() + "' exceeded; retry in " + retryAfter + " s", request.getRequestURI(),
            Map.of("limit", exceeded.limitName(), "retryAfter", retryAfter));
        return new ModelAndView();
      }
      if (exception instanceof StoreUnavailableException) {
        response.setHeader("Retry-After", "1");
        ProblemJson.write(response, 503, "about:blank", "Service Unavailable",
            "Rate limit can't be checked: its store is unavailable; retry in 1 s", request.getRequestURI(),
            Map.of("retryAfter", 1));
        return new ModelAndView();
      }
      if (exception instanceof RateLimitCountException bad) {
        badCounts.answer(request, response, bad);
        return new ModelAndView();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return null;
  }

  /** After the {@code @ExceptionHandler} resolvers (order 0). */
  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE;
  }
}

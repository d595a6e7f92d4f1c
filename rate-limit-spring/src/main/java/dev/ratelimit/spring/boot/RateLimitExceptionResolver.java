package dev.ratelimit.spring.boot;

import dev.ratelimit.Clock;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.spring.RateLimitBusyException;
import dev.ratelimit.spring.RateLimitCountException;
import dev.ratelimit.servlet.RateLimitResponses;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Answers {@link RateLimitExceededException} with the 429 of docs/design.md §6, and
 * {@link StoreUnavailableException} (a limit with {@code failure=closed} while the store is down)
 * with 503, {@link RateLimitBusyException} (an asynchronous method's decision the store refused to
 * queue) with 503 too, and {@link RateLimitCountException} (a count from the request that the limit can
 * never admit) with 400. It runs after Spring MVC's own resolvers, so an {@code @ExceptionHandler} of the
 * application for these exceptions answers instead.
 *
 * @since 1.0
 */
public class RateLimitExceptionResolver extends AbstractRateLimitExceptionResolver {
  private final RateLimitResponses responses;

  public RateLimitExceptionResolver(RateLimitResponses responses) {
    this(responses, Clock.system());
  }

  /** @param clock when bad counts were last logged (one line per limit and minute) */
  public RateLimitExceptionResolver(RateLimitResponses responses, Clock clock) {
    super(clock);
    this.responses = responses;
  }

  @Override
  void rateLimited(HttpServletRequest request, HttpServletResponse response, RateLimitExceededException exceeded)
      throws IOException, ServletException {
    responses.rateLimited(request, response, exceeded.limitName(), exceeded.decision());
  }

  @Override
  void busy(HttpServletRequest request, HttpServletResponse response, RateLimitBusyException busy)
      throws IOException, ServletException {
    responses.busy(request, response, busy.limitName());
  }

  @Override
  void storeUnavailable(HttpServletRequest request, HttpServletResponse response)
      throws IOException, ServletException {
    responses.storeUnavailable(request, response, "");
  }
}

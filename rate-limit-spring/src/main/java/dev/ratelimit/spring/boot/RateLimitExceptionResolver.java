package dev.ratelimit.spring.boot;

import dev.ratelimit.Clock;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.spring.RateLimitCountException;
import dev.ratelimit.servlet.RateLimitResponses;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * Answers {@link RateLimitExceededException} with the 429 of docs/design.md §6, and
 * {@link StoreUnavailableException} (a limit with {@code failure=closed} while the store is down)
 * with 503, and {@link RateLimitCountException} (a count from the request that the limit can
 * never admit) with 400. It runs after Spring MVC's own resolvers, so an {@code @ExceptionHandler} of the
 * application for these exceptions answers instead.
 */
public class RateLimitExceptionResolver implements HandlerExceptionResolver, Ordered {
  private final RateLimitResponses responses;
  private final BadCountAnswer badCounts;

  public RateLimitExceptionResolver(RateLimitResponses responses) {
    this(responses, Clock.system());
  }

  /** @param clock when bad counts were last logged (one line per limit and minute) */
  public RateLimitExceptionResolver(RateLimitResponses responses, Clock clock) {
    this.responses = responses;
    this.badCounts = new BadCountAnswer(clock);
  }

  @Override
  public ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response, Object handler,
      Exception exception) {
    try {
      if (exception instanceof RateLimitExceededException exceeded) {
        responses.rateLimited(request, response, exceeded.limitName(), exceeded.decision());
        return new ModelAndView();
      }
      if (exception instanceof StoreUnavailableException) {
        responses.storeUnavailable(request, response, "");
        return new ModelAndView();
      }
      if (exception instanceof RateLimitCountException bad) {
        badCounts.answer(request, response, bad);
        return new ModelAndView();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (ServletException e) {
      throw new IllegalStateException(e);
    }
    return null;
  }

  /** After the {@code @ExceptionHandler} resolvers (order 0). */
  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE;
  }
}

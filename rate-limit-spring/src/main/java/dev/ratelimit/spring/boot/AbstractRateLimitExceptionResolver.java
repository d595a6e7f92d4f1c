package dev.ratelimit.spring.boot;

import dev.ratelimit.Clock;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.spring.RateLimitBusyException;
import dev.ratelimit.spring.RateLimitCountException;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * The flow both resolvers share, with or without rate-limit-servlet: which exception gets which
 * answer, the 400 for a bad count, and the order after the application's own handlers. Only how a
 * 429 and a 503 are written differs, so that is all a subclass says.
 */
abstract class AbstractRateLimitExceptionResolver implements HandlerExceptionResolver, Ordered {
  private final BadCountAnswer badCounts;

  AbstractRateLimitExceptionResolver(Clock clock) {
    this.badCounts = new BadCountAnswer(clock);
  }

  /** Writes the 429 for a denial by {@code @RateLimited}. */
  abstract void rateLimited(HttpServletRequest request, HttpServletResponse response,
      RateLimitExceededException exceeded) throws IOException, ServletException;

  /** Writes the 503 for a limit with {@code failure=closed} while the store is down. */
  abstract void storeUnavailable(HttpServletRequest request, HttpServletResponse response)
      throws IOException, ServletException;

  /** Writes the 503 for a decision the store refused to queue (too many waiting). */
  abstract void busy(HttpServletRequest request, HttpServletResponse response, RateLimitBusyException busy)
      throws IOException, ServletException;

  @Override
  public ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response, Object handler,
      Exception exception) {
    try {
      if (exception instanceof RateLimitExceededException exceeded) {
        rateLimited(request, response, exceeded);
      } else if (exception instanceof StoreUnavailableException) {
        storeUnavailable(request, response);
      } else if (exception instanceof RateLimitBusyException busy) {
        busy(request, response, busy);
      } else if (exception instanceof RateLimitCountException bad) {
        badCounts.answer(request, response, bad);
      } else {
        return null;
      }
      return new ModelAndView();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (ServletException e) {
      throw new IllegalStateException(e);
    }
  }

  /** After the {@code @ExceptionHandler} resolvers (order 0). */
  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE;
  }
}

package dev.ratelimit.webflux;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.http.NamedLimitHeaders;
import dev.ratelimit.http.Problem;
import dev.ratelimit.http.RateLimitHeaders;
import dev.ratelimit.http.Refusals;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.spring.RateLimitBusyException;
import dev.ratelimit.spring.RateLimitCountException;
import java.nio.charset.StandardCharsets;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;

/**
 * Answers {@link RateLimitExceededException} (from a {@code @RateLimited} method) in a WebFlux
 * application with the filter's 429 (docs/design.md §6.5): the denying limit's headers,
 * {@code Retry-After} and the problem body; {@link StoreUnavailableException} (a limit with
 * {@code failure=closed} while the store is down) with 503; {@link RateLimitBusyException} (a
 * decision the store refused to queue, too many being waiting) with 503 and {@code Retry-After: 1};
 * and {@link RateLimitCountException}
 * (a count from the request that the limit can never take) with 400 naming the limit, the count
 * and the bound, as a Spring MVC application answers it. The application's own
 * {@code @ExceptionHandler}s run first; this runs before Spring Boot's error handler.
 *
 * @since 1.0
 */
public final class RateLimitExceptionHandler implements WebExceptionHandler, Ordered {
  /** Before Spring Boot's {@code DefaultErrorWebExceptionHandler} (-1), which would answer 500. */
  public static final int ORDER = -2;

  private final NamedLimitHeaders headers;

  /**
   * @param families header families as in the filter's {@code headers}: legacy, ietf, none, epoch
   * @throws IllegalArgumentException naming an unknown family
   */
  public RateLimitExceptionHandler(RateLimiter limiter, String families) {
    this.headers = new NamedLimitHeaders(limiter, RateLimitHeaders.parse(families));
  }

  @Override
  public Mono<Void> handle(ServerWebExchange exchange, Throwable failure) {
    if (exchange.getResponse().isCommitted() || !(failure instanceof RateLimitExceededException
        || failure instanceof StoreUnavailableException || failure instanceof RateLimitCountException
        || failure instanceof RateLimitBusyException)) {
      return Mono.error(failure);
    }
    ExchangeResponse response = new ExchangeResponse(exchange.getResponse());
    if (failure instanceof RateLimitCountException bad) {
      String body = Problem.json(400, "about:blank", "Bad Request", bad.detail(),
          exchange.getRequest().getPath().value(), bad.problemMembers());
      response.refuse(400, Problem.CONTENT_TYPE, body.getBytes(StandardCharsets.UTF_8));
      return response.write();
    }
    Problem problem;
    if (failure instanceof RateLimitExceededException exceeded) {
      problem = headers.rateLimited(response, exceeded.limitName(), exceeded.decision());
    } else if (failure instanceof RateLimitBusyException busy) {
      problem = Refusals.busy(response, busy.limitName());
    } else {
      problem = Refusals.storeUnavailable(response, "");
    }
    problem.write(response, exchange.getRequest().getPath().value());
    return response.write();
  }

  @Override
  public int getOrder() {
    return ORDER;
  }
}

package dev.ratelimit.servlet;

import dev.ratelimit.Decision;
import dev.ratelimit.http.NamedLimitHeaders;
import dev.ratelimit.http.RateLimitHeaders;
import dev.ratelimit.http.Refusals;
import dev.ratelimit.limiter.Decisions;
import dev.ratelimit.limiter.RateLimiter;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;

/**
 * The HTTP answer of docs/design.md §6 for decisions made outside the filter, such as a Spring MVC
 * exception handler or an annotated method inside a request: the rate limit headers on any
 * response, and the 429 with {@code Retry-After} and the problem+json body on a denial. The same
 * headers, body and rounding as {@link RateLimitFilter}.
 *
 * @since 1.0
 */
public final class RateLimitResponses {
  private final NamedLimitHeaders headers;
  private final RejectionHandler rejection;

  /**
   * @param families header families as in the filter's {@code headers}: legacy, ietf, none, epoch
   * @throws IllegalArgumentException naming an unknown family
   */
  public RateLimitResponses(RateLimiter limiter, String families) {
    this(limiter, families, RejectionHandler.problemJson());
  }

  public RateLimitResponses(RateLimiter limiter, String families, RejectionHandler rejection) {
    this.headers = new NamedLimitHeaders(limiter, RateLimitHeaders.parse(families));
    this.rejection = rejection;
  }

  /** Sets the headers of one limit's decision. */
  public void headers(HttpServletResponse response, String limit, Decision decision) {
    headers.write(ServletResponseView.of(response), limit, decision);
  }

  /** Sets the headers of several limits decided together (all or nothing), in order. */
  public void headers(HttpServletResponse response, List<String> limits, Decisions decisions) {
    headers.write(ServletResponseView.of(response), limits, decisions);
  }

  /** Answers a denial by {@code limit}: its headers, 429, {@code Retry-After} and the problem body. */
  public void rateLimited(HttpServletRequest request, HttpServletResponse response, String limit, Decision decision)
      throws IOException, ServletException {
    rejection.reject(request, response,
        Rejection.of(headers.rateLimited(ServletResponseView.of(response), limit, decision)));
  }

  /** Answers a request refused because the store is down and {@code limit}'s policy is closed: 503. */
  public void storeUnavailable(HttpServletRequest request, HttpServletResponse response, String limit)
      throws IOException, ServletException {
    storeUnavailable(rejection, request, response, limit);
  }

  /**
   * Answers a decision the store refused to queue, too many being waiting for it (the Redis
   * store's {@code maxPending}; an asynchronous {@code @RateLimited} method): 503 with
   * {@code Retry-After: 1}. Load, not a failure: no policy decided, nothing was taken.
   */
  public void busy(HttpServletRequest request, HttpServletResponse response, String limit)
      throws IOException, ServletException {
    rejection.reject(request, response, Rejection.of(Refusals.busy(new ServletResponseView(response), limit)));
  }

  /**
   * The 429 after the headers are written, for the filter too: {@code Retry-After} in whole
   * seconds, at least 1 and never earlier than the decision's wait, and the rejection body.
   */
  static void rateLimited(RejectionHandler rejection, HttpServletRequest request, HttpServletResponse response,
      String limit, long retryAfterMillis) throws IOException, ServletException {
    rejection.reject(request, response,
        Rejection.of(Refusals.rateLimited(new ServletResponseView(response), limit, retryAfterMillis)));
  }

  /** The 503 of a closed policy while the store is down, for the filter too: the limiter retries within a second. */
  static void storeUnavailable(RejectionHandler rejection, HttpServletRequest request, HttpServletResponse response,
      String limit) throws IOException, ServletException {
    rejection.reject(request, response, Rejection.of(Refusals.storeUnavailable(new ServletResponseView(response), limit)));
  }
}

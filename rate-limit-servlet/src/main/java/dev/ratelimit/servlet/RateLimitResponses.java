package dev.ratelimit.servlet;

import dev.ratelimit.Decision;
import dev.ratelimit.Decisions;
import dev.ratelimit.Limit;
import dev.ratelimit.RateLimiter;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The HTTP answer of docs/design.md §6 for decisions made outside the filter, such as a Spring MVC
 * exception handler or an annotated method inside a request: the rate limit headers on any
 * response, and the 429 with {@code Retry-After} and the problem+json body on a denial. The same
 * headers, body and rounding as {@link RateLimitFilter}.
 */
public final class RateLimitResponses {
  private final RateLimiter limiter;
  private final Headers headers;
  private final RejectionHandler rejection;
  private final Map<String, String> policies = new ConcurrentHashMap<>();

  /**
   * @param families header families as in the filter's {@code headers}: legacy, ietf, none, epoch
   * @throws IllegalArgumentException naming an unknown family
   */
  public RateLimitResponses(RateLimiter limiter, String families) {
    this(limiter, families, RejectionHandler.problemJson());
  }

  public RateLimitResponses(RateLimiter limiter, String families, RejectionHandler rejection) {
    this.limiter = limiter;
    this.headers = Headers.parse(families);
    this.rejection = rejection;
  }

  /** Sets the headers of one limit's decision. */
  public void headers(HttpServletResponse response, String limit, Decision decision) {
    headers.write(response, limit, policy(limit), decision, limiter.clock());
  }

  /** Sets the headers of several limits decided together (all or nothing), in order. */
  public void headers(HttpServletResponse response, List<String> limits, Decisions decisions) {
    if (limits.size() == 1) {
      headers(response, limits.get(0), decisions.decisions().get(0));
      return;
    }
    String[] names = limits.toArray(String[]::new);
    String[] items = new String[names.length];
    for (int i = 0; i < names.length; i++) {
      items[i] = policy(names[i]);
    }
    headers.write(response, names, items, decisions, limiter.clock());
  }

  /** Answers a denial by {@code limit}: its headers, 429, {@code Retry-After} and the problem body. */
  public void rateLimited(HttpServletRequest request, HttpServletResponse response, String limit, Decision decision)
      throws IOException, ServletException {
    headers(response, limit, decision);
    rateLimited(rejection, request, response, limit, decision.retryAfterMillis());
  }

  /** Answers a request refused because the store is down and {@code limit}'s policy is closed: 503. */
  public void storeUnavailable(HttpServletRequest request, HttpServletResponse response, String limit)
      throws IOException, ServletException {
    storeUnavailable(rejection, request, response, limit);
  }

  /**
   * The 429 after the headers are written, for the filter too: {@code Retry-After} in whole
   * seconds, at least 1 and never earlier than the decision's wait, and the rejection body.
   */
  static void rateLimited(RejectionHandler rejection, HttpServletRequest request, HttpServletResponse response,
      String limit, long retryAfterMillis) throws IOException, ServletException {
    long retryAfter = Math.max(1, Headers.seconds(retryAfterMillis));
    response.setHeader("Retry-After", Long.toString(retryAfter));
    rejection.reject(request, response, Rejection.rateLimited(limit, retryAfter));
  }

  /** The 503 of a closed policy while the store is down, for the filter too: the limiter retries within a second. */
  static void storeUnavailable(RejectionHandler rejection, HttpServletRequest request, HttpServletResponse response,
      String limit) throws IOException, ServletException {
    response.setHeader("Retry-After", "1");
    rejection.reject(request, response, Rejection.storeUnavailable(limit, 1));
  }

  private String policy(String name) {
    return policies.computeIfAbsent(name, n -> {
      Limit limit = limiter.limits().get(n);
      if (limit == null) {
        throw new IllegalArgumentException("unknown limit '" + n + "'; configured limits: "
            + String.join(", ", limiter.limits().keySet()));
      }
      return Headers.policy(n, limit);
    });
  }
}

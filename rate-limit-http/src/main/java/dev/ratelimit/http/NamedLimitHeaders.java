package dev.ratelimit.http;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.limiter.Decisions;
import dev.ratelimit.limiter.RateLimiter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The rate limit headers of decisions made outside a filter, on limits named by the caller (an
 * annotated method, an exception handler, a gateway route): the same headers as the filters,
 * with each limit's {@code RateLimit-Policy} item made once.
 */
public final class NamedLimitHeaders {
  private final RateLimiter limiter;
  private final RateLimitHeaders headers;
  private final Map<String, String> policies = new ConcurrentHashMap<>();

  public NamedLimitHeaders(RateLimiter limiter, RateLimitHeaders headers) {
    this.limiter = limiter;
    this.headers = headers;
  }

  /** Sets the headers of one limit's decision. */
  public void write(Response response, String limit, Decision decision) {
    headers.write(response, limit, policy(limit), decision, limiter.clock());
  }

  /** Sets the headers of several limits decided together (all or nothing), in order. */
  public void write(Response response, List<String> limits, Decisions decisions) {
    if (limits.size() == 1) {
      write(response, limits.get(0), decisions.decisions().get(0));
      return;
    }
    String[] names = limits.toArray(String[]::new);
    String[] items = new String[names.length];
    for (int i = 0; i < names.length; i++) {
      items[i] = policy(names[i]);
    }
    headers.write(response, names, items, decisions, limiter.clock());
  }

  /** The headers of a denial by {@code limit} and its {@code Retry-After}; the problem to answer with. */
  public Problem rateLimited(Response response, String limit, Decision decision) {
    write(response, limit, decision);
    return Refusals.rateLimited(response, limit, decision.retryAfterMillis());
  }

  /** @throws IllegalArgumentException for a limit the limiter doesn't have */
  private String policy(String name) {
    return policies.computeIfAbsent(name, n -> {
      Limit limit = limiter.limits().get(n);
      if (limit == null) {
        throw new IllegalArgumentException("unknown limit '" + n + "'; configured limits: "
            + String.join(", ", limiter.limits().keySet()));
      }
      return RateLimitHeaders.policy(n, limit);
    });
  }
}

package dev.ratelimit.http;

/**
 * The {@code Retry-After} of a refusal, set before its body (docs/design.md §6.5), for every
 * front end and for decisions made outside a filter (an exception handler).
 */
public final class Refusals {
  private Refusals() {}

  /**
   * A denial by {@code limit}: {@code Retry-After} in whole seconds, at least 1 and never earlier
   * than the decision's wait.
   */
  public static Problem rateLimited(Response response, String limit, long retryAfterMillis) {
    long retryAfter = Math.max(1, RateLimitHeaders.seconds(retryAfterMillis));
    response.setHeader("Retry-After", Long.toString(retryAfter));
    return Problem.rateLimited(limit, retryAfter);
  }

  /** The 503 of a closed policy while the store is down: the limiter retries the store within a second. */
  public static Problem storeUnavailable(Response response, String limit) {
    response.setHeader("Retry-After", "1");
    return Problem.storeUnavailable(limit, 1);
  }

  /**
   * The 503 of a decision the store refused to queue (too many waiting, {@link
   * java.util.concurrent.RejectedExecutionException}): the queue drains within its calls' command
   * timeouts, so a second is enough.
   */
  public static Problem busy(Response response, String limit) {
    response.setHeader("Retry-After", "1");
    return Problem.busy(limit, 1);
  }
}

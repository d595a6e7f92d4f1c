package dev.ratelimit.spring;

import java.util.concurrent.RejectedExecutionException;

/**
 * A {@link RateLimited} method's decision that its store refused to queue: too many decisions are
 * waiting for it (the Redis store past {@code maxPending}, docs/design.md §4.3.1). That is load,
 * not a failure: nothing was decided, nothing taken, the method did not run, and no failure policy
 * applies. A web application answers it with 503 and {@code Retry-After: 1}, as the filters do;
 * code that catches {@link RejectedExecutionException} still catches it.
 *
 * @since 1.0
 */
public class RateLimitBusyException extends RejectedExecutionException {
  private static final long serialVersionUID = 1L;

  private final String limitName;

  /**
   * @param limitName the limit the refused decision was for (the first, for several at once)
   * @param cause what the store refused it with
   */
  public RateLimitBusyException(String limitName, Throwable cause) {
    super("Rate limit '" + limitName + "' can't be decided now: too many decisions are waiting for its store", cause);
    this.limitName = limitName;
  }

  public String limitName() {
    return limitName;
  }
}

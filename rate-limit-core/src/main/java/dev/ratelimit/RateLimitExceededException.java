package dev.ratelimit;

/**
 * A request was denied by a limit. It names the limit, never the key (often an IP address or a
 * user id), and carries the decision for headers and waits. An expected outcome, so it has no
 * stack trace.
 *
 * @since 1.0
 */
public class RateLimitExceededException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String limitName;
  private final transient Decision decision;

  public RateLimitExceededException(String limitName, Decision decision) {
    super("Rate limit '" + limitName + "' exceeded; retry after " + decision.retryAfterMillis() + " ms",
        null, false, false);
    this.limitName = limitName;
    this.decision = decision;
  }

  public String limitName() {
    return limitName;
  }

  public Decision decision() {
    return decision;
  }
}

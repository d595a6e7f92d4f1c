package dev.ratelimit;

/**
 * A store could not decide: Redis down, a timeout, a lost connection. Remote stores throw it; the
 * {@link dev.ratelimit.limiter.RateLimiter} applies the limit's {@link FailurePolicy}: it admits ({@code open}), decides
 * on an in-memory store ({@code local}), or passes this exception on ({@code closed}; 503 over
 * HTTP).
 *
 * @since 1.0
 */
public class StoreUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public StoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}

package dev.ratelimit.servlet;

import dev.ratelimit.http.Problem;
import java.util.Objects;

/**
 * Why the filter refused a request, with what an RFC 9457 problem body says about it.
 *
 * @param reason rate limited (429), store unavailable or busy (503), or key missing (400)
 * @param limit the limit that refused: on a denial, the denying limit with the longest wait
 * @param retryAfterSeconds the {@code Retry-After} sent (429 and 503); 0 for a missing key
 * @param missingKey for a missing key, the key as configured ({@code header:X-Api-Key}); else null
 * @since 1.0
 */
public record Rejection(Reason reason, String limit, long retryAfterSeconds, String missingKey) {

  /** The ways a request is refused, each with its status, title and problem type. */
  public enum Reason {
    RATE_LIMITED(Problem.Reason.RATE_LIMITED),
    STORE_UNAVAILABLE(Problem.Reason.STORE_UNAVAILABLE),
    /** Too many decisions waiting for the store (503): an asynchronous {@code @RateLimited} method's. */
    BUSY(Problem.Reason.BUSY),
    MISSING_KEY(Problem.Reason.MISSING_KEY);

    /** The one definition, shared with the reactive front ends. */
    private final Problem.Reason reason;

    Reason(Problem.Reason reason) {
      this.reason = reason;
    }

    static Reason of(Problem.Reason reason) {
      for (Reason value : values()) {
        if (value.reason == reason) {
          return value;
        }
      }
      throw new IllegalArgumentException("unknown reason " + reason);
    }
  }

  public Rejection {
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(limit, "limit");
  }

  static Rejection of(Problem problem) {
    return new Rejection(Reason.of(problem.reason()), problem.limit(), problem.retryAfterSeconds(),
        problem.missingKey());
  }

  static Rejection rateLimited(String limit, long retryAfterSeconds) {
    return of(Problem.rateLimited(limit, retryAfterSeconds));
  }

  static Rejection storeUnavailable(String limit, long retryAfterSeconds) {
    return of(Problem.storeUnavailable(limit, retryAfterSeconds));
  }

  static Rejection missingKey(String limit, String key) {
    return of(Problem.missingKey(limit, key));
  }

  private Problem problem() {
    return new Problem(reason.reason, limit, retryAfterSeconds, missingKey);
  }

  public int status() {
    return problem().status();
  }

  public String title() {
    return problem().title();
  }

  /** The problem type: the IANA {@code quota-exceeded} type for 429, {@code about:blank} otherwise. */
  public String type() {
    return problem().type();
  }

  /** One sentence for people; names the limit, never the key's value (often an address or a user). */
  public String detail() {
    return problem().detail();
  }

  /**
   * The {@code application/problem+json} body (RFC 9457): type, title, status, detail, instance,
   * then {@code limit} and {@code retryAfter} (seconds, equal to {@code Retry-After}), or
   * {@code limit} and {@code key} for a missing key.
   *
   * @param instance the request URI
   */
  public String toJson(String instance) {
    return problem().toJson(instance);
  }
}

package dev.ratelimit.spring;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A {@link RateLimited} count that no decision can take: not a finite number, negative, or above
 * what the limit can ever admit. Counts often come from the request ({@code count = "#maxTokens"}),
 * so a web application answers it with 400 naming the limit, the count and the bound; the message
 * names the method and the expression too, for the log.
 *
 * @since 1.0
 */
public class RateLimitCountException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String limitName;
  private final double count;
  private final double largestCount;

  public RateLimitCountException(String limitName, double count, double largestCount, String message) {
    super(message, null);
    this.limitName = limitName;
    this.count = count;
    this.largestCount = largestCount;
  }

  public String limitName() {
    return limitName;
  }

  /** The count asked for: {@code NaN} when it was not a number at all. */
  public double count() {
    return count;
  }

  /** The largest count the limit can ever admit. */
  public double largestCount() {
    return largestCount;
  }

  /** One sentence for the client: the limit, the count and the bound, never the method or the key. */
  public String detail() {
    return "Count " + CallEvaluator.format(count) + " for rate limit '" + limitName
        + "' must be a finite number from 0 to " + CallEvaluator.format(largestCount);
  }

  /**
   * The members a 400 problem body carries beside the detail, in order: {@code limit},
   * {@code count} (a string when it is not a finite number) and {@code maxCount}; whole numbers
   * without a fraction, as clients write them.
   */
  public Map<String, Object> problemMembers() {
    Map<String, Object> members = new LinkedHashMap<>();
    members.put("limit", limitName);
    members.put("count", Double.isFinite(count) ? number(count) : String.valueOf(count));
    members.put("maxCount", number(largestCount));
    return members;
  }

  private static Number number(double value) {
    return value == Math.rint(value) && Math.abs(value) < 1e15 ? (Number) (long) value : (Number) value;
  }

  /** An expected outcome of a bad request: no stack trace. */
  @Override
  public synchronized Throwable fillInStackTrace() {
    return this;
  }
}

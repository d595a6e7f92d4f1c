package dev.ratelimit.http;

import dev.ratelimit.Limit;
import dev.ratelimit.internal.SpecText;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One line of {@code rules}: requests matching {@code pattern} spend {@code cost} units of the
 * limit named {@code limit}, from the bucket of the key {@code key} resolves.
 *
 * @param spec the limit itself, for the headers
 * @param keyName the key as configured ({@code header:X-Api-Key}), for messages
 * @param policy the limit's {@code RateLimit-Policy} item, the same on every response
 * @param methods the HTTP methods it applies to, upper case; {@code null}: every method
 * @param chargeOn the statuses that keep the charge; {@code null}: every response counts
 */
public record Rule(UrlPattern pattern, String limit, Limit spec, RequestKey key, String keyName, double cost,
    String policy, Set<String> methods, ChargeOn chargeOn) {

  public Rule {
    Objects.requireNonNull(pattern, "pattern");
    Objects.requireNonNull(limit, "limit");
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(keyName, "keyName");
    Objects.requireNonNull(policy, "policy");
  }

  /**
   * A rule on one of the limiter's limits, checked now rather than on every request.
   *
   * @throws IllegalArgumentException for an unknown limit, or a cost no request could ever pay
   */
  public static Rule of(UrlPattern pattern, String limit, Map<String, Limit> limits, RequestKey key, double cost) {
    return of(pattern, limit, limits, key, cost, null, null);
  }

  /** A rule on some methods only ({@code null}: all), refunded unless the status counts ({@code null}: always counts). */
  public static Rule of(UrlPattern pattern, String limit, Map<String, Limit> limits, RequestKey key, double cost,
      Set<String> methods, ChargeOn chargeOn) {
    Limit spec = limits.get(limit);
    if (spec == null) {
      throw new IllegalArgumentException("unknown limit '" + limit + "'; configured limits: "
          + (limits.isEmpty() ? "none" : String.join(", ", limits.keySet())));
    }
    checkCost(cost);
    double largest = spec.largestCount();
    if (cost > largest) {
      throw new IllegalArgumentException("cost " + SpecText.number(cost) + " is above what limit '" + limit
          + "' can ever admit at once (" + SpecText.number(largest) + "): every request would be denied");
    }
    return new Rule(pattern, limit, spec, key, key.toString(), cost, RateLimitHeaders.policy(limit, spec), methods,
        chargeOn);
  }

  /** Whether the rule applies to a request with this method. */
  public boolean appliesTo(String method) {
    return methods == null || methods.contains(method);
  }

  public static double checkCost(double cost) {
    if (!(cost >= 0) || Double.isInfinite(cost)) {
      throw new IllegalArgumentException("cost must be a finite number, 0 or more, but was " + cost);
    }
    return cost;
  }
}

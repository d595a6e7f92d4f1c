package dev.ratelimit.http;

import dev.ratelimit.Limit;
import dev.ratelimit.internal.SpecText;
import java.util.HashMap;
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
 * @param plan the plan each request is charged under; {@code null}: always the default plan
 * @param condition whether the rule applies to a request; {@code null}: always
 * @param planPolicies the {@code RateLimit-Policy} item of each plan the limit has
 * @param refundCancelled whether a request whose client went away before its response was
 *     committed is refunded even though its handler started (docs/design.md §2.7); only with
 *     {@code chargeOn}
 * @param costHeader the response header stating what a request really cost, which settles the
 *     charge of {@code cost} made up front; {@code null}: {@code cost} is what a request costs
 */
public record Rule(UrlPattern pattern, String limit, Limit spec, RequestKey key, String keyName, double cost,
    String policy, Set<String> methods, ChargeOn chargeOn, RequestPlan plan, RequestCondition condition,
    Map<String, String> planPolicies, boolean refundCancelled, CostHeader costHeader) {

  /** @throws IllegalArgumentException for {@code refundCancelled} without {@code chargeOn} */
  public Rule {
    Objects.requireNonNull(pattern, "pattern");
    Objects.requireNonNull(limit, "limit");
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(keyName, "keyName");
    Objects.requireNonNull(policy, "policy");
    planPolicies = Map.copyOf(planPolicies);
    if (refundCancelled && chargeOn == null) {
      // without charge-on a request counts once admitted: there is no settlement to refund from
      throw new IllegalArgumentException("refund-cancelled applies to a rule with charge-on, and this rule has none");
    }
  }

  /** A rule without plans or condition. */
  public Rule(UrlPattern pattern, String limit, Limit spec, RequestKey key, String keyName, double cost,
      String policy, Set<String> methods, ChargeOn chargeOn) {
    this(pattern, limit, spec, key, keyName, cost, policy, methods, chargeOn, null, null, Map.of(), false, null);
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
    return of(pattern, limit, limits, Map.of(), key, cost, new RuleOptions(methods, chargeOn, null, null));
  }

  /**
   * A rule with its options, on the limiter's limits and plans ({@link dev.ratelimit.limiter.RateLimiter#plans()}):
   * the headers of a request charged under a plan show that plan's policy.
   */
  public static Rule of(UrlPattern pattern, String limit, Map<String, Limit> limits,
      Map<String, Map<String, Limit>> plans, RequestKey key, double cost, RuleOptions options) {
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
    Map<String, String> planPolicies = new HashMap<>();
    plans.getOrDefault(limit, Map.of()).forEach((plan, planSpec) -> planPolicies.put(plan,
        RateLimitHeaders.policy(limit, planSpec)));
    return new Rule(pattern, limit, spec, key, key.toString(), cost, RateLimitHeaders.policy(limit, spec),
        options.methods(), options.chargeOn(), options.plan(), options.condition(), planPolicies,
        Boolean.TRUE.equals(options.refundCancelled()), costHeader(options));
  }

  /** The options' cost header, or {@code null}; passing one that isn't there is a mistake. */
  private static CostHeader costHeader(RuleOptions options) {
    if (options.costHeader() == null) {
      if (Boolean.TRUE.equals(options.passCostHeader())) {
        throw new IllegalArgumentException("cost-header-pass applies to a rule with cost-header, and this rule has none");
      }
      return null;
    }
    return CostHeader.of(options.costHeader(), Boolean.TRUE.equals(options.passCostHeader()));
  }

  /** Whether a request's charge waits for its response: to be refunded by its status, or settled by its cost header. */
  public boolean settlesAfterResponse() {
    return chargeOn != null || costHeader != null;
  }

  /** The {@code RateLimit-Policy} item of the limit under a plan ({@code null} or unknown: the default plan's). */
  public String policy(String plan) {
    return plan == null ? policy : planPolicies.getOrDefault(plan, policy);
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

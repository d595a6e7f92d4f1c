package dev.ratelimit.spring.boot;

import dev.ratelimit.limiter.RateLimiter;

/**
 * {@code ratelimit.plans.<plan>.<limit>=spec} onto the limiter's builder: a plan naming a limit
 * that {@code ratelimit.limits} lacks, or a bad spec, stops the application naming the property.
 */
final class RateLimitPlans {
  private RateLimitPlans() {}

  static void add(RateLimitProperties properties, RateLimiter.Builder builder) {
    properties.getPlans().forEach((plan, specs) -> specs.forEach((name, spec) -> {
      String property = "ratelimit.plans." + plan + "." + name;
      if (!properties.getLimits().containsKey(name)) {
        throw new InvalidLimitConfigurationException(property + "=" + spec + ": plan '" + plan + "' names limit '"
            + name + "', which ratelimit.limits does not define; configured limits: "
            + (properties.getLimits().isEmpty() ? "none" : String.join(", ", properties.getLimits().keySet())), null);
      }
      try {
        builder.onPlan(plan).limit(name, spec);
      } catch (IllegalArgumentException e) {
        throw new InvalidLimitConfigurationException(property + "=" + spec + ": " + e.getMessage(), e);
      }
    }));
  }
}

package dev.ratelimit.http;

import java.util.Set;

/**
 * What a rule has besides its pattern, limit, key and cost; each {@code null} when not given.
 *
 * @param methods the HTTP methods it applies to, upper case; {@code null}: every method
 * @param chargeOn the statuses that keep the charge; {@code null}: every response counts
 * @param plan the plan each request is charged under; {@code null}: the default plan
 * @param condition whether it applies to a request; {@code null}: always
 * @param refundCancelled whether a request whose client went away before its response was
 *     committed is refunded even after its handler started; {@code null}: not (it is charged)
 * @param costHeader the response header stating what a request really cost; {@code null}: the
 *     cost is the rule's own
 * @param passCostHeader whether the client receives the cost header too; {@code null}: not
 */
public record RuleOptions(Set<String> methods, ChargeOn chargeOn, RequestPlan plan, RequestCondition condition,
    Boolean refundCancelled, String costHeader, Boolean passCostHeader) {
  public static final RuleOptions NONE = new RuleOptions(null, null, null, null);

  /** Options that leave {@code refundCancelled} and the cost header as they are. */
  public RuleOptions(Set<String> methods, ChargeOn chargeOn, RequestPlan plan, RequestCondition condition) {
    this(methods, chargeOn, plan, condition, null);
  }

  /** Options that leave the cost header as it is. */
  public RuleOptions(Set<String> methods, ChargeOn chargeOn, RequestPlan plan, RequestCondition condition,
      Boolean refundCancelled) {
    this(methods, chargeOn, plan, condition, refundCancelled, null, null);
  }

  /** Only a cost header ({@code null}: unchanged) and whether it is passed ({@code null}: unchanged). */
  public static RuleOptions costHeader(String costHeader, Boolean passCostHeader) {
    return new RuleOptions(null, null, null, null, null, costHeader, passCostHeader);
  }

  /** These options with each one {@code other} gives replacing this one's. */
  public RuleOptions with(RuleOptions other) {
    return new RuleOptions(other.methods != null ? other.methods : methods,
        other.chargeOn != null ? other.chargeOn : chargeOn, other.plan != null ? other.plan : plan,
        other.condition != null ? other.condition : condition,
        other.refundCancelled != null ? other.refundCancelled : refundCancelled,
        other.costHeader != null ? other.costHeader : costHeader,
        other.passCostHeader != null ? other.passCostHeader : passCostHeader);
  }
}

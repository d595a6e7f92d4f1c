package dev.ratelimit.limiter;

import dev.ratelimit.Decision;
import dev.ratelimit.Operation;
import java.util.concurrent.CompletionStage;

/**
 * The {@link RateLimiter}'s decisions on one named limit, its name looked up once
 * ({@link RateLimiter#named}) rather than on every call: for code that decides on the same limit
 * in a hot loop. It follows the limit at runtime ({@link RateLimiter#replace}) as the limiter
 * does, and decides exactly as the limiter's methods of the same name with this limit's name.
 *
 * <pre>{@code
 * NamedLimiter api = limiter.named("api");
 * if (!api.admit(clientId)) { ... }
 * }</pre>
 *
 * @since 1.0
 */
public final class NamedLimiter {
  private final String name;
  private final Slot slot;
  private final UnknownPlans unknownPlans;

  NamedLimiter(String name, Slot slot, UnknownPlans unknownPlans) {
    this.name = name;
    this.slot = slot;
    this.unknownPlans = unknownPlans;
  }

  public String name() {
    return name;
  }

  /** {@link RateLimiter#limit(String, String)}: one unit if admitted. */
  public Decision limit(String key) {
    return limit(key, 1);
  }

  /** {@link RateLimiter#limit(String, String, double)}. */
  public Decision limit(String key, double count) {
    return slot.bound.apply(RateLimiter.key(key), Operation.LIMIT, count, 0);
  }

  /**
   * Whether one unit is admitted (and so taken): {@code limit(key).allowed()}, decided exactly
   * the same and heard by listeners the same, for code that reads nothing else of the decision.
   * The in-memory store then skips working out the remaining units and waits of an admission.
   */
  public boolean admit(String key) {
    return admit(key, 1);
  }

  /** {@link #admit(String)} for {@code count} units. */
  public boolean admit(String key, double count) {
    return slot.bound.admit(RateLimiter.key(key), count);
  }

  /** {@link RateLimiter#limit(String, String, String, double)}: under a plan's spec. */
  public Decision limit(String plan, String key, double count) {
    return slot.under(plan, unknownPlans).apply(RateLimiter.key(key), Operation.LIMIT, count, 0);
  }

  /** {@link RateLimiter#check(String, String, double)}: the decision, consuming nothing. */
  public Decision check(String key, double count) {
    return slot.bound.apply(RateLimiter.key(key), Operation.CHECK, count, 0);
  }

  /** {@link RateLimiter#refund(String, String, double)}: unused units given back. */
  public Decision refund(String key, double count) {
    return slot.bound.refund(RateLimiter.key(key), count);
  }

  /** {@link RateLimiter#charge(String, String, String, double)}: taken now, settled on the outcome. */
  public PendingCharge charge(String plan, String key, double count) {
    return slot.under(plan, unknownPlans).charge(RateLimiter.key(key), count);
  }

  /** {@link RateLimiter#limitAsync(String, String, String, double)}. */
  public CompletionStage<Decision> limitAsync(String plan, String key, double count) {
    return slot.under(plan, unknownPlans).applyAsync(RateLimiter.key(key), Operation.LIMIT, count, 0);
  }

  @Override
  public String toString() {
    return "NamedLimiter[" + name + " = " + slot.bound.limit + "]";
  }
}

package dev.ratelimit.limiter;

import java.util.Map;

/**
 * The limit in force for one name and plan: one volatile reference to an immutable
 * {@link BoundLimit}, read once per call, so a call sees the old limit or the new one, never a
 * mix.
 */
final class Slot {
  /** What the store keys this slot's state by: the name, or {@code name@plan} for a plan. */
  final String storeName;
  volatile BoundLimit bound;
  /**
   * A default plan's slot: the slots of the name's other plans, by plan. Set once while the
   * limiter is built (published with it), so a call under a plan makes one lookup, not two.
   */
  Map<String, Slot> plans = Map.of();

  Slot(String storeName, BoundLimit bound) {
    this.storeName = storeName;
    this.bound = bound;
  }

  static String storeName(String name, String plan) {
    return name + '@' + plan;
  }

  /**
   * The slot in force under {@code plan}, on a default plan's slot: {@code null}, or a plan not
   * configured for this limit, is the default plan (an unknown plan is logged once).
   */
  Slot resolve(String plan, UnknownPlans unknown) {
    if (plan == null) {
      return this;
    }
    Slot planned = plans.get(plan);
    if (planned == null) {
      unknown.seen(storeName, plan);
      return this;
    }
    return planned;
  }
}

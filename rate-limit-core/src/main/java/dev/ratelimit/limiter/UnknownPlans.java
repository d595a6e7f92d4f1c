package dev.ratelimit.limiter;

import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Plans asked for but not configured: each decided on the default plan and logged once per limit
 * and plan name. Plan names come from request data (a user's record), so memory is bounded: past
 * {@value #MAX_LOGGED} names, one last line says that further ones go unlogged.
 */
final class UnknownPlans {
  static final int MAX_LOGGED = 1000;
  private static final System.Logger LOG = System.getLogger("dev.ratelimit");

  private final Set<String> logged = ConcurrentHashMap.newKeySet();

  /** Notes a call on {@code plan}, which {@code limit} has not; true if this call logged it. */
  boolean seen(String limit, String plan) {
    String entry = limit + '@' + truncated(plan);
    if (logged.size() > MAX_LOGGED || logged.contains(entry) || !logged.add(entry)) {
      return false;
    }
    if (logged.size() > MAX_LOGGED) {
      LOG.log(Level.WARNING, "more than {0} unknown plans asked for; no longer logging them", MAX_LOGGED);
      return false;
    }
    LOG.log(Level.WARNING, "limit ''{0}'' has no plan ''{1}''; deciding on its default plan (logged once)",
        limit, truncated(plan));
    return true;
  }

  /** A plan name from request data, cut to a length a log line can hold. */
  private static String truncated(String plan) {
    return plan.length() > 100 ? plan.substring(0, 100) + "..." : plan;
  }
}

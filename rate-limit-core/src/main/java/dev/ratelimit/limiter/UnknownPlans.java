package dev.ratelimit.limiter;

import dev.ratelimit.internal.LogText;
import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Plans asked for but not configured: each decided on the default plan and logged once per limit
 * and plan name. Plan names come from request data (a user's record), so memory is bounded: past
 * {@value #MAX_LOGGED} names, one last line says that further ones go unlogged; and a line shows
 * the name quoted and cut ({@link LogText}), so that no name can forge a line or fill the log.
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
    LOG.log(Level.WARNING, "limit ''{0}'' has no plan {1}; deciding on its default plan (logged once)",
        limit, LogText.quoted(plan));
    return true;
  }

  /** A plan name from request data, cut to the length remembered. */
  private static String truncated(String plan) {
    return plan.length() > 100 ? plan.substring(0, 100) + "..." : plan;
  }
}

package dev.ratelimit.limiter;

import dev.ratelimit.FailurePolicy;

/**
 * What decided one operation, for the {@link DecisionListener}: the store, or a failure policy
 * while it was down. Made only when there is a listener; filled in as the operation runs.
 */
final class Report {
  /** The policy that decided one of the operation's requests without the store, if any. */
  FailurePolicy fallback;
  /** Set when an all-or-nothing call went charge by charge through each limit's policy. */
  boolean allFellBack;

  /** The policy that decided a limit's part of the operation, or {@code null}: the store. */
  FailurePolicy fallback(FailurePolicy limitPolicy) {
    return fallback != null ? fallback : allFellBack ? limitPolicy : null;
  }
}

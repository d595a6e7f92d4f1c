package dev.ratelimit.limiter;

import dev.ratelimit.Decision;
import java.util.List;

/**
 * The outcome of an all-or-nothing call over several limits: one decision per {@link NamedLimiter.Call},
 * in the same order. When denied, nothing was consumed on any limit and each decision shows that
 * limit's current level.
 *
 * @since 1.0
 */
public record Decisions(List<NamedLimiter.Call> calls, List<Decision> decisions) {

  public Decisions {
    calls = List.copyOf(calls);
    decisions = List.copyOf(decisions);
    if (calls.size() != decisions.size()) {
      throw new IllegalArgumentException(calls.size() + " calls but " + decisions.size() + " decisions");
    }
  }

  /** Admitted only when every limit admitted. */
  public boolean allowed() {
    for (Decision decision : decisions) {
      if (!decision.allowed()) {
        return false;
      }
    }
    return true;
  }

  /**
   * When all would be admitted again: the longest wait among the denials, 0 when admitted. Exact,
   * because a limit that admits now keeps admitting as time passes if nothing else happens.
   */
  public long retryAfterMillis() {
    long longest = 0;
    for (Decision decision : decisions) {
      if (!decision.allowed()) {
        longest = Math.max(longest, decision.retryAfterMillis());
      }
    }
    return longest;
  }

  /**
   * The decision that describes this call best in one set of headers: on denial the denying limit
   * with the longest wait, otherwise the limit with the fewest units left.
   */
  public int mostRestrictive() {
    int best = 0;
    for (int i = 1; i < decisions.size(); i++) {
      Decision candidate = decisions.get(i);
      Decision current = decisions.get(best);
      boolean better = allowed()
          ? candidate.remaining() < current.remaining()
          : !candidate.allowed() && (current.allowed() || candidate.retryAfterMillis() > current.retryAfterMillis());
      if (better) {
        best = i;
      }
    }
    return best;
  }
}

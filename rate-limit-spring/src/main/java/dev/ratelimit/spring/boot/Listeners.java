package dev.ratelimit.spring.boot;

import dev.ratelimit.DecisionListener;
import java.util.List;

/** Several decision listeners as one, each told even when one before it throws. */
final class Listeners {
  private Listeners() {}

  /** The one listener, all of them as one, or {@code null} for none (the limiter then reports nothing). */
  static DecisionListener of(List<DecisionListener> listeners) {
    if (listeners.size() <= 1) {
      return listeners.isEmpty() ? null : listeners.get(0);
    }
    DecisionListener[] all = listeners.toArray(DecisionListener[]::new);
    return (limit, decision, fallback) -> {
      RuntimeException first = null;
      for (DecisionListener listener : all) {
        try {
          listener.onDecision(limit, decision, fallback);
        } catch (RuntimeException e) {
          if (first == null) {
            first = e;
          }
        }
      }
      if (first != null) {
        throw first; // the limiter logs it once and keeps the decision
      }
    };
  }
}

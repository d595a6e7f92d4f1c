package dev.ratelimit.spring.boot;

import dev.ratelimit.Decision;
import dev.ratelimit.DecisionListener;
import dev.ratelimit.FailurePolicy;
import java.util.List;

/** Several decision listeners as one, each told even when one before it throws (whatever it throws). */
final class Listeners implements DecisionListener {
  private final DecisionListener[] all;

  private Listeners(DecisionListener[] all) {
    this.all = all;
  }

  /** The one listener, all of them as one, or {@code null} for none (the limiter then reports nothing). */
  static DecisionListener of(List<DecisionListener> listeners) {
    if (listeners.size() <= 1) {
      return listeners.isEmpty() ? null : listeners.get(0);
    }
    return new Listeners(listeners.toArray(DecisionListener[]::new));
  }

  @Override
  public void onDecision(String limit, Decision decision, FailurePolicy fallback) {
    onDecision(limit, decision, fallback, false);
  }

  /** Each listener as the limiter tells it, shadow denials included (the meters count them apart). */
  @Override
  public void onDecision(String limit, Decision decision, FailurePolicy fallback, boolean shadowDenied) {
    Throwable first = null;
    for (DecisionListener listener : all) {
      try {
        listener.onDecision(limit, decision, fallback, shadowDenied);
      } catch (Throwable e) { // an Error too: the listeners after it (the meters) still count
        if (first == null) {
          first = e;
        }
      }
    }
    if (first != null) {
      Listeners.<RuntimeException>rethrow(first); // the limiter logs it and keeps the decision
    }
  }

  /** Throws a failure as it is, checked or not: the limiter catches whatever a listener throws. */
  @SuppressWarnings("unchecked")
  private static <T extends Throwable> void rethrow(Throwable failure) throws T {
    throw (T) failure;
  }
}

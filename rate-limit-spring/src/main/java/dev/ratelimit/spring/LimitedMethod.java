package dev.ratelimit.spring;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import org.springframework.expression.Expression;

/**
 * What the annotations on one method ask for, resolved and checked once: the limits with their
 * parsed key and count expressions, how long to wait, the fallback, and how the method returns.
 *
 * @param maxWait how long to wait for a turn, or {@code null} to fail at once
 * @param fallback the method to call on denial, or {@code null}
 */
record LimitedMethod(Method method, List<Charge> charges, Duration maxWait, Fallback fallback, Returns returns) {

  /**
   * One limit charged by a call. A key or count that is just an argument ({@code #user},
   * {@code #p0}, {@code #a1}) is read straight from the arguments ({@code keyArgument},
   * {@code countArgument}: its index, -1 otherwise), without evaluating SpEL.
   *
   * @param largestCount the largest count the limit can ever admit the way this method asks
   * @param extras the annotation's {@code condition}, {@code chargeIf}, {@code plan} and {@code actual}
   */
  record Charge(String limit, Expression key, Expression count, String keyText, String countText,
      boolean usesRequest, boolean usesPrincipal, int keyArgument, int countArgument, double largestCount,
      Extras extras) {

    Charge withLargestCount(double largest) {
      return new Charge(limit, key, count, keyText, countText, usesRequest, usesPrincipal, keyArgument,
          countArgument, largest, extras);
    }
  }

  /**
   * An annotation's {@code condition}, {@code chargeIf}, {@code plan} and {@code actual}
   * expressions, each {@code null} when not given, with their text for messages.
   */
  record Extras(Expression condition, String conditionText, Expression chargeIf, String chargeIfText,
      Expression plan, String planText, ActualCount actual) {
    static final Extras NONE = new Extras(null, "", null, "", null, "", null);

    /** Whether the charge is settled once the call is over: by its {@code chargeIf}, or its {@code actual} count. */
    boolean settledAfterCall() {
      return chargeIf != null || actual != null;
    }
  }

  /** Whether some annotation's charge is settled once the call is over ({@code chargeIf}, {@code actual}). */
  boolean settlesAfterCall() {
    for (Charge charge : charges) {
      if (charge.extras().settledAfterCall()) {
        return true;
      }
    }
    return false;
  }

  /** The fallback method, and whether it takes the exception as its last parameter. */
  record Fallback(Method method, boolean takesException) {}

  /** How the method returns, which decides when it is limited. */
  enum Returns {
    /** Limited when called. */
    VALUE,
    /** Limited when started: the decision comes first, then the method runs. */
    COMPLETION_STAGE,
    /** Limited when subscribed (Reactor). */
    MONO,
    FLUX
  }

  /** {@code Class.method(..)} for messages. */
  String describe() {
    return method.getDeclaringClass().getSimpleName() + "." + method.getName() + "(..)";
  }
}

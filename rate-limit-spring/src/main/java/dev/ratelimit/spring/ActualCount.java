package dev.ratelimit.spring;

import dev.ratelimit.internal.LogText;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;

/**
 * A {@link RateLimited#actual} expression: what a call really cost, read from its result once it
 * is over, to settle the charge of its {@code count}, the estimate (docs/design.md §7.1). The
 * call already ran, so nothing here fails it: a value that is not a count (null, negative, NaN,
 * infinite, not a number) or an expression that throws leaves the charge at the estimate, never
 * free, and is logged once per annotation.
 */
final class ActualCount {
  private static final System.Logger LOG = System.getLogger(RateLimitedAspect.class.getName());

  private final Expression expression;
  private final String text;
  private final AtomicBoolean logged = new AtomicBoolean();

  ActualCount(Expression expression, String text) {
    this.expression = expression;
    this.text = text;
  }

  /**
   * The count the expression gives in {@code context} (which holds {@code #result}), or
   * {@code estimate} when it gives none.
   *
   * @param limit the annotation's limit, for the log line
   */
  double of(EvaluationContext context, double estimate, String limit, LimitedMethod method) {
    Object value;
    try {
      value = expression.getValue(context);
    } catch (RuntimeException e) {
      // SpEL passes on what a method it calls throws, unwrapped: any exception is the expression's failure
      unusable(limit, method, estimate, "failed: " + LogText.quoted(e.getMessage()));
      return estimate;
    }
    double count = value instanceof Number number ? number.doubleValue() : Double.NaN;
    if (count >= 0 && !Double.isInfinite(count)) {
      return count;
    }
    unusable(limit, method, estimate, "gave " + (value instanceof Number ? value : LogText.quoted(String.valueOf(value)))
        + ", which is not a count (a finite number, 0 or more)");
    return estimate;
  }

  private void unusable(String limit, LimitedMethod method, double estimate, String what) {
    if (logged.compareAndSet(false, true)) {
      LOG.log(System.Logger.Level.WARNING, "@RateLimited(name = \"" + limit + "\", actual = \"" + text + "\") on "
          + method.describe() + " " + what + ": the call is charged its count, " + CallEvaluator.format(estimate)
          + " (logged once per annotation)");
    }
  }
}

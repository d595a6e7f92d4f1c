package dev.ratelimit.spring;

import dev.ratelimit.internal.LogText;
import dev.ratelimit.limiter.NamedLimiter;
import dev.ratelimit.limiter.RateLimiter;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.util.ClassUtils;

/**
 * Turns one invocation into the limit calls its annotations ask for: evaluates each key and count
 * on the method's arguments ({@code #name}, {@code #p0}, {@code #a0}), {@code #request},
 * {@code #principal} and beans.
 * The default key and count cost no evaluation.
 */
final class CallEvaluator {
  private static final boolean WEB = ClassUtils.isPresent(
      "org.springframework.web.context.request.RequestContextHolder", CallEvaluator.class.getClassLoader());

  /** Parameter names, discovered once per method (reflection would allocate on every call). */
  private final ParameterNameDiscoverer names = new CachedNames(new DefaultParameterNameDiscoverer());
  private final BeanFactoryResolver beans;
  private final RateLimiter limiter;

  CallEvaluator(RateLimiter limiter, BeanFactory beanFactory) {
    this.limiter = limiter;
    this.beans = beanFactory == null ? null : new BeanFactoryResolver(beanFactory);
  }

  List<NamedLimiter.Call> calls(LimitedMethod limited, Object target, Object[] args) {
    return evaluate(limited, target, args).calls();
  }

  /**
   * The limit calls of one invocation and the charges they come from (those whose condition
   * held), with the evaluation context when one was needed, for {@link #counts}.
   */
  record Evaluated(List<NamedLimiter.Call> calls, List<LimitedMethod.Charge> charges, MethodBasedEvaluationContext context) {}

  Evaluated evaluate(LimitedMethod limited, Object target, Object[] args) {
    List<NamedLimiter.Call> calls = new ArrayList<>(limited.charges().size());
    List<LimitedMethod.Charge> applied = new ArrayList<>(limited.charges().size());
    // made now, on the caller's thread, when an expression is evaluated after the call: #request and
    // #principal are the caller's, wherever the call ends (a CompletionStage, a Mono, on another thread)
    MethodBasedEvaluationContext context = limited.settlesAfterCall() ? context(limited, target, args) : null;
    for (LimitedMethod.Charge charge : limited.charges()) {
      LimitedMethod.Extras extras = charge.extras();
      if (extras.condition() != null) {
        context = context != null ? context : context(limited, target, args);
        if (!Boolean.TRUE.equals(evaluate(extras.condition(), context, charge, "condition", extras.conditionText(),
            limited))) {
          continue; // not limited, not charged
        }
      }
      String plan = null;
      if (extras.plan() != null) {
        context = context != null ? context : context(limited, target, args);
        Object value = evaluate(extras.plan(), context, charge, "plan", extras.planText(), limited);
        plan = value == null ? null : value.toString();
      }
      String key = "";
      double count = 1;
      if (charge.keyArgument() >= 0) {
        Object value = args[charge.keyArgument()];
        key = value == null ? "" : value.toString();
      } else if (charge.key() != null) {
        context = context != null ? context : context(limited, target, args);
        Object value = evaluate(charge.key(), context, charge, "key", charge.keyText(), limited);
        key = value == null ? "" : value.toString();
      }
      if (charge.countArgument() >= 0) {
        count = count(args[charge.countArgument()], charge, limited);
      } else if (!charge.countText().equals("1")) {
        context = context != null ? context : context(limited, target, args);
        count = count(evaluate(charge.count(), context, charge, "count", charge.countText(), limited), charge, limited);
      }
      calls.add(limiter.named(charge.limit()).onPlan(plan).call(key, count));
      applied.add(charge);
    }
    return new Evaluated(calls, applied, context);
  }

  /**
   * The count each charge of a call that is over ends at: 0 when its {@code chargeIf} is not
   * {@code true} (refunded), the {@code actual} count of a call that returned (or completed), or
   * else its count as charged (kept).
   *
   * @param result what the call returned (for a {@code CompletionStage}, {@code Mono} or
   *     {@code Flux}, what it completed with), or null
   * @param exception what the call threw or failed with, or null
   * @throws IllegalArgumentException when a {@code chargeIf} fails to evaluate: nothing is settled
   */
  double[] settledCounts(LimitedMethod limited, Evaluated evaluated, Object result, Throwable exception) {
    double[] counts = new double[evaluated.calls().size()];
    for (int i = 0; i < counts.length; i++) {
      LimitedMethod.Charge applied = evaluated.charges().get(i);
      LimitedMethod.Extras extras = applied.extras();
      double estimate = evaluated.calls().get(i).count();
      counts[i] = estimate;
      if (!extras.settledAfterCall()) {
        continue;
      }
      MethodBasedEvaluationContext context = evaluated.context();
      context.setVariable("result", result);
      context.setVariable("exception", exception);
      if (extras.chargeIf() != null && !Boolean.TRUE.equals(evaluate(extras.chargeIf(), context, applied, "chargeIf",
          extras.chargeIfText(), limited))) {
        counts[i] = 0;
      } else if (extras.actual() != null && exception == null) {
        counts[i] = extras.actual().of(context, estimate, applied.limit(), limited);
      }
    }
    return counts;
  }

  /**
   * The counts of a call whose method never ran (cancelled before it started): 0 for each charge
   * settled after the call, its count as charged for the others.
   */
  static double[] unrunCounts(Evaluated evaluated) {
    double[] counts = new double[evaluated.calls().size()];
    for (int i = 0; i < counts.length; i++) {
      counts[i] = evaluated.charges().get(i).extras().settledAfterCall() ? 0 : evaluated.calls().get(i).count();
    }
    return counts;
  }

  /** One context for all the method's charges, with the variables any of them names. */
  private MethodBasedEvaluationContext context(LimitedMethod limited, Object target, Object[] args) {
    MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(target, limited.method(), args, names);
    if (beans != null) {
      context.setBeanResolver(beans);
    }
    boolean request = false;
    boolean principal = false;
    for (LimitedMethod.Charge charge : limited.charges()) {
      request |= charge.usesRequest();
      principal |= charge.usesPrincipal();
    }
    if (request) {
      context.setVariable("request", WEB ? CurrentRequest.get() : null);
    }
    if (principal) {
      context.setVariable("principal", AuthenticatedUser.name());
    }
    return context;
  }

  private static Object evaluate(Expression expression, MethodBasedEvaluationContext context, LimitedMethod.Charge charge,
      String attribute, String text, LimitedMethod limited) {
    try {
      return expression.getValue(context);
    } catch (EvaluationException e) {
      throw new IllegalArgumentException("@RateLimited(name = \"" + charge.limit() + "\", " + attribute + " = \""
          + text + "\") on " + limited.describe() + " failed: " + LogText.quoted(e.getMessage()), e);
    }
  }

  /**
   * The count as a number the limit could admit; else a {@link RateLimitCountException}, which a
   * web application answers with 400, since counts often come from the request.
   */
  private static double count(Object value, LimitedMethod.Charge charge, LimitedMethod limited) {
    double count = value instanceof Number number ? number.doubleValue() : Double.NaN;
    if (!(count >= 0) || Double.isInfinite(count) || count > charge.largestCount()) {
      throw new RateLimitCountException(charge.limit(), count, charge.largestCount(), "@RateLimited(name = \""
          + charge.limit() + "\", count = \"" + charge.countText() + "\") on " + limited.describe() + " gave "
          + (value instanceof Number ? value : LogText.quoted(String.valueOf(value))) + ", but the count must be a finite number from 0 to " + format(charge.largestCount())
          + ", the most limit '" + charge.limit() + "' can ever admit");
    }
    return count;
  }

  static String format(double number) {
    return number == Math.rint(number) && Math.abs(number) < 1e15 ? Long.toString((long) number)
        : Double.toString(number);
  }

  /** Parameter names per method, discovered once. */
  private static final class CachedNames implements ParameterNameDiscoverer {
    private final ParameterNameDiscoverer discoverer;
    private final java.util.Map<Method, String[]> names = new java.util.concurrent.ConcurrentHashMap<>();

    CachedNames(ParameterNameDiscoverer discoverer) {
      this.discoverer = discoverer;
    }

    @Override
    public String[] getParameterNames(Method method) {
      return names.computeIfAbsent(method, discoverer::getParameterNames);
    }

    @Override
    public String[] getParameterNames(java.lang.reflect.Constructor<?> constructor) {
      return discoverer.getParameterNames(constructor);
    }
  }

  /** The current HTTP request, kept apart so that this class loads without spring-web. */
  static final class CurrentRequest {
    private CurrentRequest() {}

    static Object get() {
      org.springframework.web.context.request.RequestAttributes attributes =
          org.springframework.web.context.request.RequestContextHolder.getRequestAttributes();
      return attributes instanceof org.springframework.web.context.request.ServletRequestAttributes servlet
          ? servlet.getRequest() : null;
    }
  }
}

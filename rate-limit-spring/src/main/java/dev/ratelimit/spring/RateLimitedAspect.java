package dev.ratelimit.spring;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.limiter.Decisions;
import dev.ratelimit.limiter.NamedLimiter;
import dev.ratelimit.limiter.PendingCharge;
import dev.ratelimit.limiter.RateLimiter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.reflect.MethodSignature;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;

/**
 * Enforces {@link RateLimited}: resolves the call's limits, keys and counts, and applies them all
 * or nothing before the method runs. A denial throws {@link RateLimitExceededException} (naming
 * the denying limit with the longest wait), waits for a turn, or calls the fallback.
 *
 * <p>Put around the annotated methods by {@link RateLimitedAdvisor}, not by an AspectJ pointcut
 * (that class says why).
 *
 * @since 1.0
 */
public class RateLimitedAspect {
  private static final System.Logger LOG = System.getLogger(RateLimitedAspect.class.getName());

  private final RateLimiter limiter;
  private final LimitedMethods methods;
  private final CallEvaluator evaluator;
  private final ResponseHeaders headers;

  public RateLimitedAspect(RateLimiter limiter, BeanFactory beanFactory) {
    this(limiter, new LimitedMethods(limiter), beanFactory, ResponseHeaders.NONE);
  }

  RateLimitedAspect(RateLimiter limiter, LimitedMethods methods, BeanFactory beanFactory, ResponseHeaders headers) {
    this.limiter = limiter;
    this.methods = methods;
    this.evaluator = new CallEvaluator(limiter, beanFactory);
    this.headers = headers;
  }

  /** Limits one call of a method {@link RateLimitedAdvisor} matched. */
  public Object limit(ProceedingJoinPoint call) throws Throwable {
    Method method = ((MethodSignature) call.getSignature()).getMethod();
    LimitedMethod limited = methods.find(method, AopUtils.getTargetClass(call.getTarget()));
    if (limited == null) {
      return call.proceed();
    }
    CallEvaluator.Evaluated evaluated = evaluator.evaluate(limited, call.getTarget(), call.getArgs());
    List<NamedLimiter.Call> calls = evaluated.calls();
    if (calls.isEmpty()) {
      return call.proceed(); // every condition was false
    }
    if (limited.chargesByOutcome()) {
      return limited.returns() == LimitedMethod.Returns.VALUE
          ? chargeByOutcome(call, limited, evaluated)
          : chargeByOutcomeWhenStarted(call, limited, evaluated);
    }
    return switch (limited.returns()) {
      case VALUE -> limitNow(call, limited, calls);
      case COMPLETION_STAGE -> limitWhenStarted(call, limited, calls);
      case MONO, FLUX -> ReactorLimiting.whenSubscribed(call, limited, calls, this);
    };
  }

  private Object limitNow(ProceedingJoinPoint call, LimitedMethod limited, List<NamedLimiter.Call> calls) throws Throwable {
    Decisions decisions = decide(limited, calls);
    headers.write(calls, decisions);
    return decisions.allowed() ? call.proceed() : denied(call, limited, calls, decisions);
  }

  private Object limitWhenStarted(ProceedingJoinPoint call, LimitedMethod limited, List<NamedLimiter.Call> calls) {
    return decideAsync(limited, calls).thenCompose(decisions -> {
      try {
        Object result = decisions.allowed() ? call.proceed() : denied(call, limited, calls, decisions);
        return result == null ? CompletableFuture.completedFuture(null) : (CompletionStage<?>) result;
      } catch (Throwable failure) {
        return CompletableFuture.failedFuture(failure);
      }
    });
  }

  /**
   * Charges up front, runs the method, then keeps or refunds each charge by its
   * {@code chargeIf}: one limit through its {@link PendingCharge} (exact), several through
   * {@link NamedLimiter#refund}.
   */
  private Object chargeByOutcome(ProceedingJoinPoint call, LimitedMethod limited, CallEvaluator.Evaluated evaluated)
      throws Throwable {
    List<NamedLimiter.Call> calls = evaluated.calls();
    PendingCharge single = null;
    Decisions decisions;
    if (calls.size() == 1) {
      NamedLimiter.Call only = calls.get(0);
      single = only.named().charge(only.key(), only.count());
      decisions = single(only, single.decision());
    } else {
      decisions = limiter.limitAll(calls);
    }
    headers.write(calls, decisions);
    if (!decisions.allowed()) {
      return denied(call, limited, calls, decisions);
    }
    Object result;
    try {
      result = call.proceed();
    } catch (Throwable failure) {
      settle(call, limited, evaluated, single, null, failure);
      throw failure;
    }
    settle(call, limited, evaluated, single, result, null);
    return result;
  }

  /**
   * {@link #chargeByOutcome} for a {@code CompletionStage} method, started when the decision
   * arrives. Once started, the method's own stage settles the charges by its outcome, whatever
   * the caller does with the stage it was given: a caller that cancels it does not stop the work
   * the method began. A caller that cancels before the decision arrived leaves the method
   * unstarted: it never runs, and its {@code chargeIf} charges are refunded (docs/design.md §7.1).
   */
  private Object chargeByOutcomeWhenStarted(ProceedingJoinPoint call, LimitedMethod limited,
      CallEvaluator.Evaluated evaluated) {
    List<NamedLimiter.Call> calls = evaluated.calls();
    CompletableFuture<Decisions> decided = limiter.limitAllAsync(calls).toCompletableFuture();
    AtomicBoolean claimed = new AtomicBoolean(); // once: by the method starting, or by a cancel refunding it
    CompletableFuture<Object> returned = decided.thenCompose(decisions -> {
      CompletableFuture<Object> outcome = new CompletableFuture<>();
      try {
        if (!decisions.allowed()) {
          return stage(denied(call, limited, calls, decisions));
        }
        if (!claimed.compareAndSet(false, true)) {
          return CompletableFuture.completedFuture(null); // cancelled first: refunded, never run
        }
        stage(call.proceed()).whenComplete((result, failure) -> {
          Throwable cause = failure instanceof java.util.concurrent.CompletionException c && c.getCause() != null
              ? c.getCause() : failure;
          try {
            settle(call, limited, evaluated, null, result, cause);
          } catch (RuntimeException e) {
            outcome.completeExceptionally(e);
            return;
          }
          if (cause != null) {
            outcome.completeExceptionally(cause);
          } else {
            outcome.complete(result);
          }
        });
      } catch (Throwable failure) {
        settle(call, limited, evaluated, null, null, failure);
        outcome.completeExceptionally(failure);
      }
      return outcome;
    });
    // a stage cancelled before the decision arrived never applies the function above
    returned.whenComplete((result, failure) -> {
      if (returned.isCancelled()) {
        decided.thenAccept(decisions -> {
          if (decisions.allowed() && claimed.compareAndSet(false, true)) {
            refundOutcomeCharges(evaluated);
          }
        });
      }
    });
    return returned;
  }

  /** Gives back the charges that a {@code chargeIf} settles, for a call whose method never ran; never blocks. */
  private void refundOutcomeCharges(CallEvaluator.Evaluated evaluated) {
    List<NamedLimiter.Call> calls = evaluated.calls();
    for (int i = 0; i < calls.size(); i++) {
      if (evaluated.charges().get(i).extras().chargeIf() != null) {
        NamedLimiter.Call charged = calls.get(i);
        charged.named().refundAsync(charged.key(), charged.count()).exceptionally(failure -> {
          // the store could not take it back: the charge stays, as for a call that ran
          LOG.log(System.Logger.Level.DEBUG, "refund of limit '" + charged.limit() + "' failed; the charge stays",
              failure);
          return null;
        });
      }
    }
  }

  /** A method's CompletionStage result as one of objects (null: completed with null). */
  @SuppressWarnings("unchecked")
  private static CompletionStage<Object> stage(Object result) {
    return result == null ? CompletableFuture.completedFuture(null) : (CompletionStage<Object>) result;
  }

  /** Keeps the charges whose outcome counts; refunds the others. */
  private void settle(ProceedingJoinPoint call, LimitedMethod limited, CallEvaluator.Evaluated evaluated,
      PendingCharge single, Object result, Throwable failure) {
    List<NamedLimiter.Call> calls = evaluated.calls();
    for (int i = 0; i < calls.size(); i++) {
      boolean counts = evaluator.counts(limited, evaluated, i, call.getTarget(), call.getArgs(), result, failure);
      if (single != null) {
        single.settle(counts);
      } else if (!counts) {
        NamedLimiter.Call charged = calls.get(i);
        charged.named().refund(charged.key(), charged.count());
      }
    }
  }

  /** The decisions, waiting for a turn when the annotation says so. */
  Decisions decide(LimitedMethod limited, List<NamedLimiter.Call> calls) throws InterruptedException {
    if (limited.maxWait() != null) {
      return limiter.acquireAll(calls, limited.maxWait());
    }
    NamedLimiter.Call only = calls.get(0);
    return calls.size() == 1 ? single(only, only.named().limit(only.key(), only.count()))
        : limiter.limitAll(calls);
  }

  CompletionStage<Decisions> decideAsync(LimitedMethod limited, List<NamedLimiter.Call> calls) {
    return limited.maxWait() != null ? limiter.acquireAllAsync(calls, limited.maxWait()) : limiter.limitAllAsync(calls);
  }

  private static Decisions single(NamedLimiter.Call call, Decision decision) {
    return new Decisions(List.of(call), List.of(decision));
  }

  /** The fallback's result, or the exception naming the denying limit. */
  Object denied(ProceedingJoinPoint call, LimitedMethod limited, List<NamedLimiter.Call> calls, Decisions decisions)
      throws Throwable {
    int denying = decisions.mostRestrictive();
    RateLimitExceededException exception =
        new RateLimitExceededException(calls.get(denying).limit(), decisions.decisions().get(denying));
    if (limited.fallback() == null) {
      throw exception;
    }
    Object[] args = call.getArgs();
    if (limited.fallback().takesException()) {
      args = Arrays.copyOf(args, args.length + 1);
      args[args.length - 1] = exception;
    }
    try {
      return limited.fallback().method().invoke(call.getTarget(), args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}

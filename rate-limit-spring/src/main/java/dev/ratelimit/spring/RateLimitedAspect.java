package dev.ratelimit.spring;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.internal.Futures;
import dev.ratelimit.limiter.Decisions;
import dev.ratelimit.limiter.NamedLimiter;
import dev.ratelimit.limiter.RateLimiter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
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
    if (limited.settlesAfterCall()) {
      return switch (limited.returns()) {
        case VALUE -> settleAfterCall(call, limited, evaluated);
        case COMPLETION_STAGE -> settleWhenStageEnds(call, limited, evaluated);
        case MONO, FLUX -> ReactorLimiting.settledWhenDone(call, limited, evaluated, this);
      };
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
   * Charges up front, runs the method, then settles each charge by its {@code chargeIf} and its
   * {@code actual} count ({@link CallCharges}).
   */
  private Object settleAfterCall(ProceedingJoinPoint call, LimitedMethod limited, CallEvaluator.Evaluated evaluated)
      throws Throwable {
    List<NamedLimiter.Call> calls = evaluated.calls();
    CallCharges charges = CallCharges.charge(limiter, calls);
    headers.write(calls, charges.decisions());
    if (!charges.allowed()) {
      return denied(call, limited, calls, charges.decisions());
    }
    Object result;
    try {
      result = call.proceed();
    } catch (Throwable failure) {
      charges.settle(evaluator.settledCounts(limited, evaluated, null, failure));
      throw failure;
    }
    charges.settle(evaluator.settledCounts(limited, evaluated, result, null));
    return result;
  }

  /**
   * {@link #settleAfterCall} for a {@code CompletionStage} method, started when the charge is
   * decided, and settled without blocking when the stage it returned completes; the stage the
   * caller gets completes once the settlement is recorded. Once started, the method's own stage
   * settles the charges, whatever the caller does with the stage it was given: a caller that
   * cancels it does not stop the work the method began. A caller that cancels before the decision
   * arrived leaves the method unstarted: it never runs, and its settled charges are refunded
   * (docs/design.md §7.1).
   */
  private Object settleWhenStageEnds(ProceedingJoinPoint call, LimitedMethod limited,
      CallEvaluator.Evaluated evaluated) {
    List<NamedLimiter.Call> calls = evaluated.calls();
    CompletableFuture<CallCharges> decided = CallCharges.chargeAsync(limiter, calls).toCompletableFuture();
    AtomicBoolean claimed = new AtomicBoolean(); // once: by the method starting, or by a cancel refunding it
    CompletableFuture<Object> returned = decided.thenCompose(charges -> {
      if (!charges.allowed()) {
        try {
          return stage(denied(call, limited, calls, charges.decisions()));
        } catch (Throwable denial) {
          return CompletableFuture.failedFuture(denial);
        }
      }
      if (!claimed.compareAndSet(false, true)) {
        return CompletableFuture.completedFuture(null); // cancelled first: refunded, never run
      }
      CompletableFuture<Object> outcome = new CompletableFuture<>();
      CompletionStage<Object> running;
      try {
        running = stage(call.proceed());
      } catch (Throwable failure) {
        running = CompletableFuture.failedFuture(failure);
      }
      running.whenComplete((result, failure) -> {
        Throwable cause = Futures.cause(failure);
        double[] counts;
        try {
          counts = evaluator.settledCounts(limited, evaluated, result, cause);
        } catch (RuntimeException e) {
          outcome.completeExceptionally(e); // a chargeIf that fails keeps the charges and fails the call
          return;
        }
        charges.settleAsync(counts).whenComplete((settled, never) -> {
          if (cause != null) {
            outcome.completeExceptionally(cause);
          } else {
            outcome.complete(result);
          }
        });
      });
      return outcome;
    });
    // a stage cancelled before the decision arrived never applies the function above
    returned.whenComplete((result, failure) -> {
      if (returned.isCancelled()) {
        decided.thenAccept(charges -> {
          if (charges.allowed() && claimed.compareAndSet(false, true)) {
            charges.settleAsync(CallEvaluator.unrunCounts(evaluated));
          }
        });
      }
    });
    return returned;
  }

  /** A method's CompletionStage result as one of objects (null: completed with null). */
  @SuppressWarnings("unchecked")
  private static CompletionStage<Object> stage(Object result) {
    return result == null ? CompletableFuture.completedFuture(null) : (CompletionStage<Object>) result;
  }

  CallEvaluator evaluator() {
    return evaluator;
  }

  RateLimiter limiter() {
    return limiter;
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
    return busyNamed(limited.maxWait() != null ? limiter.acquireAllAsync(calls, limited.maxWait())
        : limiter.limitAllAsync(calls), calls);
  }

  /**
   * The decision of {@code calls}, failing with {@link RateLimitBusyException} where the store
   * refused to queue it: told apart from a {@link RejectedExecutionException} of the method's own,
   * so that a web application answers the limiter's with 503.
   */
  static <T> CompletionStage<T> busyNamed(CompletionStage<T> decision, List<NamedLimiter.Call> calls) {
    return decision.exceptionallyCompose(failure -> {
      Throwable cause = Futures.cause(failure);
      return CompletableFuture.failedFuture(cause instanceof RejectedExecutionException refused
          && !(refused instanceof RateLimitBusyException) ? new RateLimitBusyException(calls.get(0).limit(), refused)
          : failure);
    });
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

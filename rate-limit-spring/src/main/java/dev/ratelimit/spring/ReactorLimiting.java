package dev.ratelimit.spring;

import dev.ratelimit.limiter.NamedLimiter;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.aspectj.lang.ProceedingJoinPoint;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code Mono} and {@code Flux} methods: the method runs when called (it only assembles), and the
 * limits apply when the result is subscribed, once per subscription. Loaded only with Reactor.
 */
final class ReactorLimiting {
  private ReactorLimiting() {}

  static Object whenSubscribed(ProceedingJoinPoint call, LimitedMethod limited, List<NamedLimiter.Call> calls,
      RateLimitedAspect aspect) throws Throwable {
    Object assembled = call.proceed();
    Mono<Object> admitted = Mono.defer(() -> Mono.fromCompletionStage(aspect.decideAsync(limited, calls)))
        .flatMap(decisions -> {
          if (decisions.allowed()) {
            return Mono.just(assembled);
          }
          try {
            return Mono.justOrEmpty(aspect.denied(call, limited, calls, decisions));
          } catch (Throwable denial) {
            return Mono.error(denial);
          }
        });
    if (limited.returns() == LimitedMethod.Returns.MONO) {
      return admitted.flatMap(result -> (Mono<?>) result);
    }
    return admitted.flatMapMany(result -> (Flux<?>) result);
  }

  /**
   * {@link #whenSubscribed} for a method whose charges are settled by their {@code actual} count
   * (docs/design.md §7.1): charged when subscribed, without blocking; the work subscribed once the
   * charge is admitted; settled, without blocking, when the work completes, over the
   * {@code Mono}'s value or the {@code Flux}'s last element ({@code null} when it completes
   * empty). The subscriber gets the completion once the settlement is recorded; the values
   * themselves are not held back. Work that fails, or whose subscriber cancels once it started,
   * keeps the charge as made (it ran); a subscriber that cancels while the charge is decided never
   * starts the work, and the charge is refunded when the decision arrives.
   */
  static Object settledWhenDone(ProceedingJoinPoint call, LimitedMethod limited, CallEvaluator.Evaluated evaluated,
      RateLimitedAspect aspect) throws Throwable {
    Object assembled = call.proceed();
    List<NamedLimiter.Call> calls = evaluated.calls();
    Mono<CallCharges> admitted = Mono.defer(() -> {
      CompletableFuture<CallCharges> decided = CallCharges.chargeAsync(aspect.limiter(), calls).toCompletableFuture();
      AtomicBoolean claimed = new AtomicBoolean(); // once: by the work starting, or by a cancel refunding it
      // a cancel leaves the decision to arrive (suppressCancel): the store charges anyway, and it is given back
      return Mono.fromFuture(decided, true)
          .filter(charges -> !charges.allowed() || claimed.compareAndSet(false, true))
          .doOnCancel(() -> decided.thenAccept(charges -> {
            if (charges.allowed() && claimed.compareAndSet(false, true)) {
              charges.settleAsync(CallEvaluator.unrunCounts(evaluated));
            }
          }));
    });
    Mono<Object> chosen = admitted.flatMap(charges -> {
      if (charges.allowed()) {
        return Mono.just(settled(assembled, charges, limited, evaluated, aspect));
      }
      try {
        return Mono.justOrEmpty(aspect.denied(call, limited, calls, charges.decisions()));
      } catch (Throwable denial) {
        return Mono.error(denial);
      }
    });
    if (limited.returns() == LimitedMethod.Returns.MONO) {
      return chosen.flatMap(result -> (Mono<?>) result);
    }
    return chosen.flatMapMany(result -> (Flux<?>) result);
  }

  /** The work, settling the charges when it completes, before its subscriber hears of it. */
  @SuppressWarnings("unchecked")
  private static Object settled(Object work, CallCharges charges, LimitedMethod limited,
      CallEvaluator.Evaluated evaluated, RateLimitedAspect aspect) {
    if (limited.returns() == LimitedMethod.Returns.MONO) {
      return ((Mono<Object>) work)
          .flatMap(value -> settle(charges, limited, evaluated, aspect, value).thenReturn(value))
          .switchIfEmpty(Mono.defer(() -> settle(charges, limited, evaluated, aspect, null).then(Mono.empty())));
    }
    AtomicReference<Object> last = new AtomicReference<>();
    return ((Flux<Object>) work).doOnNext(last::set)
        .concatWith(Mono.defer(() -> settle(charges, limited, evaluated, aspect, last.get())).then(Mono.empty()));
  }

  private static Mono<Void> settle(CallCharges charges, LimitedMethod limited, CallEvaluator.Evaluated evaluated,
      RateLimitedAspect aspect, Object result) {
    return Mono.fromCompletionStage(charges.settleAsync(aspect.evaluator().settledCounts(limited, evaluated, result,
        null)));
  }
}

package dev.ratelimit.spring;

import dev.ratelimit.limiter.NamedLimiter;
import java.util.List;
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
}

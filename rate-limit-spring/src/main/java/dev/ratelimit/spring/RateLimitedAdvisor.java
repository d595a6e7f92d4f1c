package dev.ratelimit.spring;

import java.io.Serial;
import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicReference;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.aspectj.MethodInvocationProceedingJoinPoint;
import org.springframework.aop.support.StaticMethodMatcherPointcutAdvisor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Puts {@link RateLimitedAspect} around every method {@link LimitedMethods} finds annotations on.
 *
 * <p>A plain Spring advisor rather than an AspectJ {@code @Around} pointcut, because of where
 * matching happens. Spring clears AspectJ's match cache once the context has started, so an
 * AspectJ pointcut is matched again on a method's first call, on the caller's thread, and for
 * {@code @within} AspectJ reads the class file from disk. In a reactive application that first
 * call runs on an event loop: under BlockHound the read fails, Spring takes the failure for "no
 * match" (logged at debug only) and the method runs unlimited from then on, with no decision at
 * all. Matching here is reflection only, and static: decided once per method and proxy, with no
 * test left for each call.
 */
final class RateLimitedAdvisor extends StaticMethodMatcherPointcutAdvisor {
  @Serial
  private static final long serialVersionUID = 1L;

  RateLimitedAdvisor(ObjectProvider<RateLimitedAspect> aspect) {
    // resolved on the first call without a lock: concurrent first calls on event loops must not
    // park (a lock there is a blocking call); the aspect is a singleton, so a race resolves it twice
    // to the same bean
    AtomicReference<RateLimitedAspect> limiting = new AtomicReference<>();
    setClassFilter(type -> AnnotationUtils.isCandidateClass(type, RateLimited.class));
    setAdvice((MethodInterceptor) invocation -> {
      RateLimitedAspect resolved = limiting.get();
      if (resolved == null) {
        resolved = aspect.getObject();
        limiting.set(resolved);
      }
      return resolved.limit(new MethodInvocationProceedingJoinPoint((ProxyMethodInvocation) invocation));
    });
  }

  @Override
  public boolean matches(Method method, Class<?> targetClass) {
    return LimitedMethods.annotated(method, targetClass);
  }
}

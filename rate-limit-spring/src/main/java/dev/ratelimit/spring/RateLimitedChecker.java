package dev.ratelimit.spring;

import java.lang.reflect.Method;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Checks every bean's {@link RateLimited} annotations at startup (unknown limits, bad SpEL, bad
 * waits, missing fallbacks), so that a bad one stops the application instead of failing its
 * first call. Beans are noted as they are created and checked once all singletons exist, when
 * the {@link dev.ratelimit.limiter.RateLimiter} is surely there.
 */
final class RateLimitedChecker implements BeanPostProcessor, SmartInitializingSingleton {
  private final ObjectProvider<LimitedMethods> methods;
  private final Set<Class<?>> annotated = ConcurrentHashMap.newKeySet();

  RateLimitedChecker(ObjectProvider<LimitedMethods> methods) {
    this.methods = methods;
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    Class<?> type = AopUtils.getTargetClass(bean);
    if (AnnotationUtils.isCandidateClass(type, RateLimited.class) && hasAnnotations(type)) {
      annotated.add(type);
    }
    return bean;
  }

  private static boolean hasAnnotations(Class<?> type) {
    if (!AnnotatedElementUtils.findMergedRepeatableAnnotations(type, RateLimited.class).isEmpty()) {
      return true;
    }
    for (Method method : type.getDeclaredMethods()) {
      if (!AnnotatedElementUtils.findMergedRepeatableAnnotations(method, RateLimited.class).isEmpty()) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void afterSingletonsInstantiated() {
    LimitedMethods limited = methods.getObject();
    annotated.forEach(limited::checkAll);
  }
}

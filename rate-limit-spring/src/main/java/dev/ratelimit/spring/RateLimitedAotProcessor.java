package dev.ratelimit.spring;

import java.lang.reflect.Method;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

/**
 * What a native image needs for a bean with {@code @RateLimited} methods (docs/design.md §7.5):
 * {@link LimitedMethods} reads the annotations and the parameter names (SpEL's {@code #user}) by
 * reflection at startup and calls a {@code fallback} reflectively, so the bean's class and its
 * superclasses get their methods registered, and the annotation type with them. Spring's AOT
 * processing ({@code process-aot}) runs it for every bean, from {@code META-INF/spring/aot.factories}.
 */
final class RateLimitedAotProcessor implements BeanRegistrationAotProcessor {

  @Override
  public BeanRegistrationAotContribution processAheadOfTime(RegisteredBean bean) {
    Class<?> type = ClassUtils.getUserClass(bean.getBeanClass());
    if (!limited(type)) {
      return null;
    }
    return (generation, code) -> {
      ReflectionHints reflection = generation.getRuntimeHints().reflection();
      reflection.registerType(RateLimited.class, MemberCategory.INVOKE_PUBLIC_METHODS);
      reflection.registerType(RateLimited.List.class, MemberCategory.INVOKE_PUBLIC_METHODS);
      for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
        reflection.registerType(c, MemberCategory.INVOKE_DECLARED_METHODS, MemberCategory.INVOKE_PUBLIC_METHODS);
      }
    };
  }

  /** Whether the class or one of its methods (its own or inherited) carries {@code @RateLimited}. */
  static boolean limited(Class<?> type) {
    if (!AnnotationUtils.isCandidateClass(type, RateLimited.class)) {
      return false;
    }
    if (AnnotatedElementUtils.hasAnnotation(type, RateLimited.class)
        || AnnotatedElementUtils.hasAnnotation(type, RateLimited.List.class)) {
      return true;
    }
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Method method : c.getDeclaredMethods()) {
        if (!AnnotatedElementUtils.findMergedRepeatableAnnotations(method, RateLimited.class).isEmpty()) {
          return true;
        }
      }
    }
    return false;
  }
}

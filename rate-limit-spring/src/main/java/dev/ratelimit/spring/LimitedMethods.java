package dev.ratelimit.spring;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.internal.SpecText;
import dev.ratelimit.limiter.RateLimiter;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;

/**
 * Reads {@link RateLimited} annotations into {@link LimitedMethod}s, once per method and target
 * class, checking them against the configured limits: every error names the method and the bad
 * value. Used at startup for every bean, so that a bad annotation stops the application.
 */
final class LimitedMethods {
  private static final SpelExpressionParser PARSER =
      new SpelExpressionParser(new SpelParserConfiguration(SpelCompilerMode.MIXED, LimitedMethods.class.getClassLoader()));
  private static final boolean REACTOR = ClassUtils.isPresent("reactor.core.publisher.Mono", LimitedMethods.class.getClassLoader());

  private final RateLimiter limiter;
  private final ParameterNameDiscoverer parameterNames;
  private final Map<Key, LimitedMethod> cache = new ConcurrentHashMap<>();

  private record Key(Method method, Class<?> target) {}

  /** No annotations on the method or its class. */
  private static final LimitedMethod NONE = new LimitedMethod(null, List.of(), null, null, LimitedMethod.Returns.VALUE);

  LimitedMethods(RateLimiter limiter) {
    this(limiter, new DefaultParameterNameDiscoverer());
  }

  /** @param parameterNames the names SpEL sees, as {@link CallEvaluator} discovers them */
  LimitedMethods(RateLimiter limiter, ParameterNameDiscoverer parameterNames) {
    this.limiter = limiter;
    this.parameterNames = parameterNames;
  }

  /**
   * The limits on a method called on an instance of {@code target}, or {@code null} when it has
   * none.
   *
   * @throws RateLimitConfigurationException for a bad annotation
   */
  LimitedMethod find(Method method, Class<?> target) {
    LimitedMethod found = cache.computeIfAbsent(new Key(method, target), key -> read(key.method(), key.target()));
    return found == NONE ? null : found;
  }

  /** Checks every annotated method of a class (at startup). */
  void checkAll(Class<?> target) {
    for (Method method : target.getMethods()) {
      find(method, target);
    }
    for (Method method : target.getDeclaredMethods()) {
      if (!AnnotatedElementUtils.findMergedRepeatableAnnotations(method, RateLimited.class).isEmpty()) {
        find(method, target);
      }
    }
  }

  /**
   * Whether a method called on an instance of {@code target} has annotations to read: the
   * method's own, or its class's for a public method. Reflection only, no I/O, so it may run on
   * any thread ({@link RateLimitedAdvisor} matches with it).
   */
  static boolean annotated(Method method, Class<?> target) {
    return !annotations(ClassUtils.getMostSpecificMethod(method, target), target).isEmpty();
  }

  private static Set<RateLimited> annotations(Method specific, Class<?> target) {
    Set<RateLimited> annotations = new LinkedHashSet<>();
    if (Modifier.isPublic(specific.getModifiers()) && specific.getDeclaringClass() != Object.class) {
      annotations.addAll(AnnotatedElementUtils.findMergedRepeatableAnnotations(target, RateLimited.class));
    }
    annotations.addAll(AnnotatedElementUtils.findMergedRepeatableAnnotations(specific, RateLimited.class));
    return annotations;
  }

  private LimitedMethod read(Method method, Class<?> target) {
    Method specific = ClassUtils.getMostSpecificMethod(method, target);
    Set<RateLimited> annotations = annotations(specific, target);
    if (annotations.isEmpty()) {
      return NONE;
    }
    String where = specific.getDeclaringClass().getName() + "." + specific.getName();
    List<LimitedMethod.Charge> charges = new ArrayList<>();
    Duration maxWait = null;
    String fallbackName = "";
    for (RateLimited annotation : annotations) {
      if (!limiter.limits().containsKey(annotation.name())) {
        throw new RateLimitConfigurationException("@RateLimited(name = \"" + annotation.name() + "\") on " + where
            + " names no configured limit; configured limits: " + String.join(", ", limiter.limits().keySet())
            + " (define it as ratelimit.limits." + annotation.name() + "=<spec>)");
      }
      Expression key = parse(annotation.key(), "key", annotation, where);
      Expression count = parse(annotation.count(), "count", annotation, where);
      Set<String> variables = new LinkedHashSet<>();
      variables.addAll(checked(key, "key", annotation.key(), annotation, specific));
      variables.addAll(checked(count, "count", annotation.count(), annotation, specific));
      LimitedMethod.Extras extras = extras(annotation, specific, where, variables);
      charges.add(new LimitedMethod.Charge(annotation.name(), key, count, annotation.key(), annotation.count(),
          variables.contains("request"), variables.contains("principal"),
          argument(annotation.key(), specific), argument(annotation.count(), specific),
          limiter.limits().get(annotation.name()).largestCount(), extras));
      if (!annotation.maxWait().isEmpty()) {
        maxWait = longest(maxWait, maxWait(annotation, where));
      }
      if (!annotation.fallback().isEmpty()) {
        if (!fallbackName.isEmpty() && !fallbackName.equals(annotation.fallback())) {
          throw new RateLimitConfigurationException("@RateLimited on " + where + " names two fallbacks, '"
              + fallbackName + "' and '" + annotation.fallback() + "'; choose one");
        }
        fallbackName = annotation.fallback();
      }
    }
    if (maxWait != null && charges.size() == 1 && limiter.limits().get(charges.get(0).limit()).reservable()) {
      // one limit with a wait reserves (RateLimitedAspect.decide): it may go into debt down to maxReserved
      charges.set(0, charges.get(0).withLargestCount(limiter.limits().get(charges.get(0).limit()).largestReservation()));
    }
    LimitedMethod.Fallback fallback = fallbackName.isEmpty() ? null : fallback(specific, target, fallbackName, where);
    return new LimitedMethod(specific, List.copyOf(charges), maxWait, fallback, returns(specific));
  }

  /**
   * The annotation's condition, chargeIf, plan and actual, parsed and checked; their variables
   * join {@code variables} ({@code #result} exists in chargeIf and actual only, {@code #exception}
   * in chargeIf only).
   */
  private LimitedMethod.Extras extras(RateLimited annotation, Method method, String where, Set<String> variables) {
    if (annotation.condition().isEmpty() && annotation.chargeIf().isEmpty() && annotation.plan().isEmpty()
        && annotation.actual().isEmpty()) {
      return LimitedMethod.Extras.NONE;
    }
    Expression condition = parse(annotation.condition(), "condition", annotation, where);
    Expression chargeIf = parse(annotation.chargeIf(), "chargeIf", annotation, where);
    Expression plan = parse(annotation.plan(), "plan", annotation, where);
    Expression actual = parse(annotation.actual(), "actual", annotation, where);
    variables.addAll(checked(condition, "condition", annotation.condition(), annotation, method));
    variables.addAll(checked(plan, "plan", annotation.plan(), annotation, method));
    if (chargeIf != null) {
      variables.addAll(afterCall(chargeIf, "chargeIf", annotation.chargeIf(), Set.of("result", "exception"),
          annotation, method, where));
      LimitedMethod.Returns returns = returns(method);
      if (returns == LimitedMethod.Returns.MONO || returns == LimitedMethod.Returns.FLUX) {
        throw new RateLimitConfigurationException("@RateLimited(name = \"" + annotation.name() + "\", chargeIf = \""
            + annotation.chargeIf() + "\") on " + where + ": chargeIf is not supported on Mono or Flux methods");
      }
      if (!annotation.maxWait().isEmpty()) {
        throw new RateLimitConfigurationException("@RateLimited(name = \"" + annotation.name() + "\") on " + where
            + ": chargeIf and maxWait conflict (a waited-for reservation can't be settled by outcome); choose one");
      }
    }
    if (actual != null) {
      variables.addAll(afterCall(actual, "actual", annotation.actual(), Set.of("result"), annotation, method, where));
      if (!annotation.maxWait().isEmpty()) {
        throw new RateLimitConfigurationException("@RateLimited(name = \"" + annotation.name() + "\") on " + where
            + ": actual and maxWait conflict (a waited-for reservation can't be settled by its actual count);"
            + " choose one");
      }
    }
    return new LimitedMethod.Extras(condition, annotation.condition(), chargeIf, annotation.chargeIf(), plan,
        annotation.plan(), actual == null ? null : new ActualCount(actual, annotation.actual()));
  }

  /**
   * The variables of an expression evaluated once the call is over, checked: {@code own} (such as
   * {@code #result}) exist there besides the call's; the call's are returned.
   */
  private Set<String> afterCall(Expression expression, String attribute, String text, Set<String> own,
      RateLimited annotation, Method method, String where) {
    Set<String> variables = new LinkedHashSet<>(ExpressionVariables.of(expression));
    variables.removeAll(own);
    ExpressionVariables.check(variables, method, parameterNames, "@RateLimited(name = \"" + annotation.name()
        + "\", " + attribute + " = \"" + text + "\")", where);
    return variables;
  }

  private static Expression parse(String text, String attribute, RateLimited annotation, String where) {
    if (!attribute.equals("count") && text.isEmpty()) {
      return null; // the global key; no condition, chargeIf, plan or actual
    }
    try {
      return PARSER.parseExpression(text);
    } catch (ParseException e) {
      throw new RateLimitConfigurationException("@RateLimited(name = \"" + annotation.name() + "\", " + attribute
          + " = \"" + text + "\") on " + where + " is not a valid SpEL expression: " + e.getSimpleMessage());
    }
  }

  /** The expression's variables, each checked to exist when the method is called. */
  private Set<String> checked(Expression expression, String attribute, String text, RateLimited annotation,
      Method method) {
    if (expression == null) {
      return Set.of();
    }
    Set<String> variables = ExpressionVariables.of(expression);
    ExpressionVariables.check(variables, method, parameterNames,
        "@RateLimited(name = \"" + annotation.name() + "\", " + attribute + " = \"" + text + "\")",
        method.getDeclaringClass().getName() + "." + method.getName());
    return variables;
  }

  /** The index of the argument an expression names on its own ({@code #user}, {@code #p0}, {@code #a1}); -1 otherwise. */
  static int argument(String expression, Method method) {
    java.util.regex.Matcher indexed = ARGUMENT_INDEX.matcher(expression.strip());
    if (indexed.matches()) {
      int index = Integer.parseInt(indexed.group(1));
      return index < method.getParameterCount() ? index : -1;
    }
    java.lang.reflect.Parameter[] parameters = method.getParameters();
    for (int i = 0; i < parameters.length; i++) {
      if (parameters[i].isNamePresent() && expression.strip().equals("#" + parameters[i].getName())) {
        return i;
      }
    }
    return -1;
  }

  private static final java.util.regex.Pattern ARGUMENT_INDEX = java.util.regex.Pattern.compile("#[pa](\\d+)");

  private static Duration maxWait(RateLimited annotation, String where) {
    try {
      return SpecText.parseDuration(annotation.maxWait());
    } catch (IllegalArgumentException e) {
      throw new RateLimitConfigurationException("@RateLimited(name = \"" + annotation.name() + "\", maxWait = \""
          + annotation.maxWait() + "\") on " + where + ": " + e.getMessage());
    }
  }

  private static Duration longest(Duration a, Duration b) {
    return a == null || b.compareTo(a) > 0 ? b : a;
  }

  /** The fallback: same parameters, optionally plus the exception; a return type the caller can take. */
  private static LimitedMethod.Fallback fallback(Method method, Class<?> target, String name, String where) {
    Class<?>[] parameters = method.getParameterTypes();
    Class<?>[] withException = Arrays.copyOf(parameters, parameters.length + 1);
    withException[parameters.length] = RateLimitExceededException.class;
    for (Class<?>[] candidate : List.of(withException, parameters)) {
      Method found = ClassUtils.getMethodIfAvailable(target, name, candidate);
      if (found == null) {
        found = findDeclared(target, name, candidate);
      }
      if (found != null) {
        if (!ClassUtils.isAssignable(method.getReturnType(), found.getReturnType())) {
          throw new RateLimitConfigurationException("fallback '" + name + "' for " + where + " returns "
              + found.getReturnType().getName() + ", which is not a " + method.getReturnType().getName());
        }
        found.setAccessible(true);
        return new LimitedMethod.Fallback(found, candidate.length > parameters.length);
      }
    }
    throw new RateLimitConfigurationException("fallback '" + name + "' for " + where + " not found: declare "
        + name + "(" + names(parameters) + ") or " + name + "(" + names(withException) + ") in " + target.getName());
  }

  private static Method findDeclared(Class<?> type, String name, Class<?>[] parameters) {
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      try {
        return c.getDeclaredMethod(name, parameters);
      } catch (NoSuchMethodException e) {
        // look in the superclass
      }
    }
    return null;
  }

  private static String names(Class<?>[] types) {
    return String.join(", ", Arrays.stream(types).map(Class::getSimpleName).toList());
  }

  private static LimitedMethod.Returns returns(Method method) {
    Class<?> type = method.getReturnType();
    if (CompletionStage.class.isAssignableFrom(type) && type.isAssignableFrom(java.util.concurrent.CompletableFuture.class)) {
      return LimitedMethod.Returns.COMPLETION_STAGE;
    }
    if (REACTOR && type.getName().equals("reactor.core.publisher.Mono")) {
      return LimitedMethod.Returns.MONO;
    }
    if (REACTOR && type.getName().equals("reactor.core.publisher.Flux")) {
      return LimitedMethod.Returns.FLUX;
    }
    return LimitedMethod.Returns.VALUE;
  }
}

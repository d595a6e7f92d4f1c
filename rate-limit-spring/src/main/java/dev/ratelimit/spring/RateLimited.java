package dev.ratelimit.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits calls to a method (or to every public method of a class) on a configured limit.
 *
 * <pre>{@code
 * @RateLimited(name = "send-message", key = "#user.id")
 * public Message send(User user, String text) { ... }
 *
 * @RateLimited(name = "llm-tokens", key = "#principal", count = "#prompt.length() / 4 + #maxTokens",
 *     actual = "#result.usage().totalTokens()")
 * public Completion complete(String prompt, int maxTokens) { ... }
 * }</pre>
 *
 * <p>{@code key} and {@code count} are SpEL over the method's parameters (by name, {@code #p0},
 * {@code #a0}), {@code #request} when there is a current HTTP request, {@code #principal} (the
 * authenticated user's name, or null when nobody is), and beans ({@code @name}). A call whose cost
 * is known only once it is over charges {@code count} as an estimate and settles it with
 * {@link #actual}. Expressions are
 * parsed once, at startup, where a variable that will not exist (a misspelt parameter, a name in
 * a class compiled without {@code -parameters}) stops the application. Several annotations on one call (repeated, or on the class and the
 * method) are applied all or nothing. A denial throws
 * {@link dev.ratelimit.RateLimitExceededException}, unless the annotation says
 * otherwise ({@link #maxWait}, {@link #fallback}). Methods returning {@code CompletionStage}, {@code Mono} or {@code Flux} are limited
 * when started or subscribed, not when assembled.
 *
 * @since 1.0
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
@Repeatable(RateLimited.List.class)
public @interface RateLimited {

  /** A configured limit's name ({@code ratelimit.limits.<name>}); an unknown name fails at startup. */
  String name();

  /** SpEL for the key; {@code ""} (the default) or a null result is the limit's one global bucket. */
  String key() default "";

  /**
   * SpEL for the units this call costs: a finite number from 0 to what the limit can ever admit,
   * else {@link RateLimitCountException} (400 in a Spring MVC application). Default: 1.
   */
  String count() default "1";

  /**
   * Wait up to this long for a turn instead of failing at once ({@code "2s"}, {@code "500ms"},
   * {@code "PT1S"}); empty (the default) fails at once. (Named {@code maxWait}, not {@code wait}:
   * an annotation may not declare {@code wait()}, which every object has.)
   */
  String maxWait() default "";

  /**
   * On denial, call this method of the same bean instead: same parameters, optionally followed by
   * the {@link dev.ratelimit.RateLimitExceededException}, and a compatible return type.
   */
  String fallback() default "";

  /**
   * SpEL evaluated before the call, over the same variables as {@link #key}: {@code false} means
   * this annotation does not limit the call (nor charge it), as in Spring's {@code @Cacheable}.
   * Empty (the default): always limited.
   */
  String condition() default "";

  /**
   * SpEL evaluated after the call returns or throws, with {@code #result} (the return value, or
   * null) and {@code #exception} (what it threw, or null) besides the usual variables: the call is
   * charged up front, so concurrent calls never overshoot, and refunded when this is
   * {@code false} ({@code chargeIf = "#result == false"} counts failed logins only). A call denied
   * up front never runs. Empty (the default): every call counts. Not on {@code Mono} or
   * {@code Flux} methods.
   */
  String chargeIf() default "";

  /**
   * SpEL evaluated when the call is over, with {@code #result} besides the usual variables: the
   * units the call really cost ({@code actual = "#result.usage().totalTokens()"}). The call is
   * charged {@link #count}, an estimate, up front, so that concurrent calls never overshoot; then
   * the difference is given back, or taken even into debt, so that a call that cost more than
   * estimated is paid for by the calls after it (docs/design.md §2.7). {@code CompletionStage},
   * {@code Mono} and {@code Flux} methods settle when the result completes (a {@code Flux}: over
   * its last element; {@code #result} is null when it completes empty). A call that throws, or is
   * cancelled after it started, keeps the estimate; one cancelled before it started is refunded. A
   * value that is not a finite number, 0 or more, keeps the estimate and is logged once. Empty
   * (the default): the count is what the call costs. Not with {@link #maxWait}.
   */
  String actual() default "";

  /**
   * SpEL for the plan whose spec of the limit applies ({@code ratelimit.plans.<plan>.<limit>});
   * empty (the default), a null result or a plan not configured for the limit: the default plan.
   */
  String plan() default "";

  /** Holds repeated {@link RateLimited} annotations. */
  @Documented
  @Retention(RetentionPolicy.RUNTIME)
  @Target({ElementType.METHOD, ElementType.TYPE})
  @interface List {
    RateLimited[] value();
  }
}

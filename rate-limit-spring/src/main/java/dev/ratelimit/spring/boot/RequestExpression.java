package dev.ratelimit.spring.boot;

import dev.ratelimit.internal.LogText;
import dev.ratelimit.spring.ExpressionVariables;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * A filter rule's SpEL, {@code #{...}}, over the request's variables (the servlet filter's
 * {@code #request} and {@code #principal}; the WebFlux filter's {@code #exchange} too) and beans:
 * a rule's {@code plan}, {@code condition} or key. Parsed and its variables checked once, at startup;
 * evaluated on each request. An expression that fails on a request (a missing header
 * dereferenced, a bean that throws) never fails the request: a plan falls back to the default
 * plan, a condition holds (so that no request escapes a limit by making it fail), a key is missing
 * (the missing-key policy applies); each expression logs its first failure, once, its message
 * quoted and cut as it may carry request data (docs/design.md §7.3, §10.1).
 */
public final class RequestExpression {
  private static final Log LOG = LogFactory.getLog(RequestExpression.class);
  private static final SpelExpressionParser PARSER = new SpelExpressionParser();

  private final String property;
  private final String text;
  private final Expression expression;
  private final BeanFactoryResolver beans;
  private final boolean readsPrincipal;
  private final AtomicBoolean failureLogged = new AtomicBoolean();

  private RequestExpression(String property, String text, Expression expression, BeanFactory beanFactory,
      boolean readsPrincipal) {
    this.property = property;
    this.text = text;
    this.expression = expression;
    this.beans = beanFactory == null ? null : new BeanFactoryResolver(beanFactory);
    this.readsPrincipal = readsPrincipal;
  }

  public static boolean isSpel(String text) {
    return text.startsWith("#{") && text.endsWith("}");
  }

  /**
   * @param property the property it is the value of, for messages
   * @param variables the variables the front end defines
   * @throws IllegalArgumentException for text that is not {@code #{...}}, does not parse, or
   *     names a variable the front end does not define (null on every request)
   */
  public static RequestExpression parse(String property, String text, List<String> variables, BeanFactory beanFactory) {
    if (text == null || !isSpel(text.strip())) {
      throw new IllegalArgumentException("'" + text + "' is not a SpEL expression #{...}");
    }
    String spel = text.strip();
    Expression expression;
    try {
      expression = PARSER.parseExpression(spel.substring(2, spel.length() - 1));
    } catch (ParseException e) {
      throw new IllegalArgumentException("'" + spel + "' is not a valid SpEL expression: " + e.getSimpleMessage(), e);
    }
    Set<String> named = ExpressionVariables.of(expression);
    for (String name : named) {
      if (!variables.contains(name) && !ExpressionVariables.SPEL.contains(name)) {
        throw new IllegalArgumentException("'" + spel + "' names #" + name + ", which is not a variable here;"
            + " the variables: #" + String.join(", #", variables));
      }
    }
    return new RequestExpression(property, spel, expression, beanFactory, named.contains("principal"));
  }

  /** Whether it reads {@code #principal}: the front end then provides the user's name. */
  public boolean readsPrincipal() {
    return readsPrincipal;
  }

  /** The plan it names on a request: its value's text; {@code null} (the default plan) when null or failing. */
  public String plan(Map<String, Object> variables) {
    try {
      Object plan = value(variables);
      return plan == null ? null : plan.toString();
    } catch (RuntimeException e) {
      failed("the default plan", e);
      return null;
    }
  }

  /** Whether the rule applies to a request: true unless its value is {@code false}; failing, or not a boolean: true. */
  public boolean applies(Map<String, Object> variables) {
    Object applies;
    try {
      applies = value(variables);
    } catch (RuntimeException e) {
      failed("the rule applies", e);
      return true;
    }
    if (applies instanceof Boolean bool) {
      return bool;
    }
    failed("the rule applies", new IllegalArgumentException("the value is " + applies + ", not true or false"));
    return true;
  }

  /**
   * A key's value on a request: its text, or null (a missing key), also when it fails: then the
   * rule's missing-key policy applies (the shared global bucket, skip, or 400), never a 500.
   */
  public String key(Map<String, Object> variables) {
    try {
      Object key = value(variables);
      return key == null ? null : key.toString();
    } catch (RuntimeException e) {
      failed("a missing key", e);
      return null;
    }
  }

  private Object value(Map<String, Object> variables) {
    StandardEvaluationContext context = new StandardEvaluationContext();
    context.setVariables(variables);
    if (beans != null) {
      context.setBeanResolver(beans);
    }
    return expression.getValue(context);
  }

  private void failed(String outcome, RuntimeException e) {
    if (failureLogged.compareAndSet(false, true)) {
      LOG.warn(property + "=" + text + " failed on a request (" + LogText.quoted(e.getMessage()) + "); " + outcome
          + " (logged once)");
    }
  }

  @Override
  public String toString() {
    return text;
  }
}

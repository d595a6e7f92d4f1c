package dev.ratelimit.spring.boot;

import dev.ratelimit.servlet.KeyResolver;
import dev.ratelimit.spring.AuthenticatedUser;
import dev.ratelimit.spring.ExpressionVariables;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * A filter rule's key written as SpEL, {@code #{...}}, over {@code #request}, {@code #principal}
 * (the authenticated user's name, as in {@code @RateLimited}) and beans:
 * {@code key: "#{#request.getHeader('X-Tenant') + ':' + #request.remoteAddr}"}. Parsed once at
 * startup; a null result is a missing key.
 */
final class SpelKeyResolver implements KeyResolver {
  private static final SpelExpressionParser PARSER = new SpelExpressionParser();
  private static final java.util.Set<String> VARIABLES = java.util.Set.of("request", "principal");

  private final String text;
  private final Expression expression;
  private final BeanFactoryResolver beans;
  private final boolean usesPrincipal;

  private SpelKeyResolver(String text, Expression expression, BeanFactory beanFactory) {
    this.text = text;
    this.expression = expression;
    this.beans = new BeanFactoryResolver(beanFactory);
    this.usesPrincipal = text.contains("#principal");
  }

  static boolean isSpel(String key) {
    return key.startsWith("#{") && key.endsWith("}");
  }

  /** @throws IllegalArgumentException naming the expression and the parse error */
  static SpelKeyResolver parse(String key, BeanFactory beanFactory) {
    String body = key.substring(2, key.length() - 1);
    Expression expression;
    try {
      expression = PARSER.parseExpression(body);
    } catch (ParseException e) {
      throw new IllegalArgumentException("key '" + key + "' is not a valid SpEL expression: " + e.getSimpleMessage(), e);
    }
    for (String name : ExpressionVariables.of(expression)) {
      // an unknown variable is null on every request: every client would share the missing key's bucket
      if (!VARIABLES.contains(name) && !ExpressionVariables.SPEL.contains(name)) {
        throw new IllegalArgumentException("key '" + key + "' names #" + name
            + ", which is not a variable here; the variables: #request, #principal");
      }
    }
    return new SpelKeyResolver(key, expression, beanFactory);
  }

  @Override
  public String resolve(HttpServletRequest request) {
    StandardEvaluationContext context = new StandardEvaluationContext();
    context.setVariable("request", request);
    if (usesPrincipal) {
      context.setVariable("principal", AuthenticatedUser.name(request.getUserPrincipal()));
    }
    context.setBeanResolver(beans);
    try {
      Object key = expression.getValue(context);
      return key == null ? null : key.toString();
    } catch (EvaluationException e) {
      throw new IllegalArgumentException("key '" + text + "' failed: " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return text;
  }
}

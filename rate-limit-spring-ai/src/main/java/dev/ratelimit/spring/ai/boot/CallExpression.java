package dev.ratelimit.spring.ai.boot;

import dev.ratelimit.internal.LogText;
import dev.ratelimit.spring.ExpressionVariables;
import dev.ratelimit.spring.ai.ChatCall;
import java.util.List;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * {@code ratelimit.ai.key} or {@code ratelimit.ai.estimate}: SpEL over a {@link ChatCall}, its root,
 * with {@code #prompt}, {@code #context} and {@code #principal}, and beans ({@code @name}).
 * Parsed and its variables checked once, at startup; a variable it names that does not exist
 * would be null on every call (one key for everybody), so it stops the application. Written plain
 * ({@code #principal}) or as the filter rules write SpEL ({@code #{#principal}}).
 */
final class CallExpression {
  static final List<String> VARIABLES = List.of("prompt", "context", "principal");
  private static final SpelExpressionParser PARSER = new SpelExpressionParser();

  private final String property;
  private final String text;
  private final Expression expression;
  private final BeanFactoryResolver beans;

  private CallExpression(String property, String text, Expression expression, BeanFactory beanFactory) {
    this.property = property;
    this.text = text;
    this.expression = expression;
    this.beans = beanFactory == null ? null : new BeanFactoryResolver(beanFactory);
  }

  /**
   * @param property the property's name, for messages
   * @throws IllegalArgumentException for text that is blank, does not parse or names an unknown variable
   */
  static CallExpression parse(String property, String text, BeanFactory beanFactory) {
    String spel = text == null ? "" : text.strip();
    if (spel.startsWith("#{") && spel.endsWith("}")) {
      spel = spel.substring(2, spel.length() - 1).strip();
    }
    if (spel.isEmpty()) {
      throw new IllegalArgumentException("an empty expression; write SpEL such as #principal");
    }
    Expression expression;
    try {
      expression = PARSER.parseExpression(spel);
    } catch (ParseException e) {
      throw new IllegalArgumentException("'" + spel + "' is not a valid SpEL expression: " + e.getSimpleMessage(), e);
    }
    for (String name : ExpressionVariables.of(expression)) {
      if (!VARIABLES.contains(name) && !ExpressionVariables.SPEL.contains(name)) {
        throw new IllegalArgumentException("'" + spel + "' names #" + name + ", which is not a variable here;"
            + " the variables: #" + String.join(", #", VARIABLES));
      }
    }
    return new CallExpression(property, spel, expression, beanFactory);
  }

  /** The key: the value's text, or {@code null} (a missing key). */
  String key(ChatCall call) {
    Object key = value(call);
    return key == null ? null : key.toString();
  }

  /** The estimate: the value as a number; NaN (refused as a count) when it is not one. */
  double estimate(ChatCall call) {
    return value(call) instanceof Number number ? number.doubleValue() : Double.NaN;
  }

  /** @throws IllegalArgumentException when the expression fails on this call, naming the property */
  private Object value(ChatCall call) {
    StandardEvaluationContext context = new StandardEvaluationContext(call);
    context.setVariable("prompt", call.prompt());
    context.setVariable("context", call.context());
    context.setVariable("principal", call.principal());
    if (beans != null) {
      context.setBeanResolver(beans);
    }
    try {
      return expression.getValue(context);
    } catch (EvaluationException e) {
      throw new IllegalArgumentException(property + "=" + text + " failed on a chat call: "
          + LogText.quoted(e.getMessage()), e);
    }
  }

  @Override
  public String toString() {
    return text;
  }
}

package dev.ratelimit.webflux;

import dev.ratelimit.http.Request;
import dev.ratelimit.internal.LogText;
import dev.ratelimit.http.RequestKey;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.web.server.ServerWebExchange;

/**
 * A rule's key written as SpEL, {@code #{...}}, over {@code #exchange} and {@code #request} (its
 * {@code ServerHttpRequest}), and beans when a bean factory is given:
 * {@code #{#request.headers.getFirst('X-Tenant')}}. Parsed once; a null result is a missing key,
 * and so is a failure on a request (logged once).
 * It runs on the event loop: an expression must not block.
 */
final class SpelKey implements RequestKey {
  private static final Log LOG = LogFactory.getLog(SpelKey.class);
  private static final SpelExpressionParser PARSER = new SpelExpressionParser();

  private final String text;
  private final Expression expression;
  private final BeanFactoryResolver beans;
  private final AtomicBoolean failureLogged = new AtomicBoolean();

  private SpelKey(String text, Expression expression, BeanFactory beanFactory) {
    this.text = text;
    this.expression = expression;
    this.beans = beanFactory == null ? null : new BeanFactoryResolver(beanFactory);
  }

  static boolean isSpel(String key) {
    return key.startsWith("#{") && key.endsWith("}");
  }

  /** @throws IllegalArgumentException naming the expression and the parse error */
  static SpelKey parse(String key, BeanFactory beanFactory) {
    try {
      return new SpelKey(key, PARSER.parseExpression(key.substring(2, key.length() - 1)), beanFactory);
    } catch (ParseException e) {
      throw new IllegalArgumentException("key '" + key + "' is not a valid SpEL expression: " + e.getSimpleMessage(), e);
    }
  }

  @Override
  public String resolve(Request request) {
    ServerWebExchange exchange = (ServerWebExchange) request.unwrap();
    StandardEvaluationContext context = new StandardEvaluationContext();
    context.setVariable("exchange", exchange);
    context.setVariable("request", exchange.getRequest());
    if (beans != null) {
      context.setBeanResolver(beans);
    }
    try {
      Object key = expression.getValue(context);
      return key == null ? null : key.toString();
    } catch (RuntimeException e) {
      // a key that can't be read is missing: the missing-key policy applies, never a 500
      if (failureLogged.compareAndSet(false, true)) {
        // the message may carry request data (a value SpEL could not convert): quoted and cut, docs/design.md §10.1
        LOG.warn("key " + text + " failed on a request (" + LogText.quoted(e.getMessage()) + "); a missing key (logged once)");
      }
      return null;
    }
  }

  @Override
  public String toString() {
    return text;
  }
}

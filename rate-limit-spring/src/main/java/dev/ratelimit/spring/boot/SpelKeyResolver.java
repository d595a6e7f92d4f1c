package dev.ratelimit.spring.boot;

import dev.ratelimit.servlet.KeyResolver;
import dev.ratelimit.spring.AuthenticatedUser;
import jakarta.servlet.http.HttpServletRequest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.BeanFactory;

/**
 * A servlet filter rule's key written as SpEL, {@code #{...}}, over {@code #request},
 * {@code #principal} (the authenticated user's name, as in {@code @RateLimited}) and beans:
 * {@code key: "#{#request.getHeader('X-Tenant') + ':' + #request.remoteAddr}"}. The servlet form of
 * {@link RequestExpression}, which parses and checks it once at startup; a null result is a
 * missing key.
 */
final class SpelKeyResolver implements KeyResolver {
  /** What the servlet filter's rule expressions see: the request and the user's name. */
  static final List<String> VARIABLES = List.of("request", "principal");

  private final RequestExpression expression;

  private SpelKeyResolver(RequestExpression expression) {
    this.expression = expression;
  }

  static boolean isSpel(String key) {
    return RequestExpression.isSpel(key);
  }

  /** @throws IllegalArgumentException naming the expression and the parse error, or a variable that isn't there */
  static SpelKeyResolver parse(String key, BeanFactory beanFactory) {
    try {
      return new SpelKeyResolver(RequestExpression.parse("key", key, VARIABLES, beanFactory));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("key " + e.getMessage(), e);
    }
  }

  @Override
  public String resolve(HttpServletRequest request) {
    return expression.key(variables(request, expression));
  }

  /** {@code #request}, and {@code #principal} when the expression reads it (the name, as in {@code @RateLimited}). */
  static Map<String, Object> variables(HttpServletRequest request, RequestExpression expression) {
    Map<String, Object> variables = new HashMap<>(4);
    variables.put("request", request);
    if (expression.readsPrincipal()) {
      variables.put("principal", AuthenticatedUser.name(request.getUserPrincipal()));
    }
    return variables;
  }

  @Override
  public String toString() {
    return expression.toString();
  }
}

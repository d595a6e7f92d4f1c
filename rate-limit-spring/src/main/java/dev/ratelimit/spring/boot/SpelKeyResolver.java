package dev.ratelimit.spring.boot;

import dev.ratelimit.servlet.ClientAddress;
import dev.ratelimit.servlet.KeyResolver;
import dev.ratelimit.spring.AuthenticatedUser;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import org.springframework.beans.factory.BeanFactory;

/**
 * A servlet filter rule's key written as SpEL, {@code #{...}}, over {@code #request},
 * {@code #principal} (the authenticated user's name, as in {@code @RateLimited}),
 * {@code #authorities}, {@code #clientAddress} and beans:
 * {@code key: "#{@tenants.of(#principal)}"}. The servlet form of {@link RequestExpression}, which
 * parses and checks it once at startup; a null result is a missing key.
 */
final class SpelKeyResolver implements KeyResolver {
  /** What the servlet filter's rule expressions see: the request, the user's name and authorities, the client's address. */
  static final List<String> VARIABLES = List.of("request", "principal", "authorities", "clientAddress");

  private final RequestExpression expression;
  private final ClientAddress clients;

  private SpelKeyResolver(RequestExpression expression, ClientAddress clients) {
    this.expression = expression;
    this.clients = clients;
  }

  static boolean isSpel(String key) {
    return RequestExpression.isSpel(key);
  }

  /**
   * @param clients how {@code #clientAddress} finds the client: the filter's trusted proxies
   * @throws IllegalArgumentException naming the expression and the parse error, or a variable or bean that isn't there
   */
  static SpelKeyResolver parse(String key, BeanFactory beanFactory, ClientAddress clients) {
    try {
      return new SpelKeyResolver(RequestExpression.parse("key", key, VARIABLES, beanFactory), clients);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("key " + e.getMessage(), e);
    }
  }

  @Override
  public String resolve(HttpServletRequest request) {
    return expression.key(variables(request, clients));
  }

  /**
   * The servlet filter's variables on a request: {@code #request}; {@code #principal}, the
   * user's name, and {@code #authorities} (docs/design.md §7.3); {@code #clientAddress} through
   * the filter's trusted proxies. Each is read only when an expression names it.
   */
  static RequestExpression.Variables variables(HttpServletRequest request, ClientAddress clients) {
    return name -> switch (name) {
      case "request" -> request;
      case "principal" -> AuthenticatedUser.name(request.getUserPrincipal());
      case "authorities" -> AuthenticatedUser.authorities();
      case "clientAddress" -> ClientIp.of(clients.of(request));
      default -> null;
    };
  }

  @Override
  public String toString() {
    return expression.toString();
  }
}

package dev.ratelimit.servlet;

import dev.ratelimit.http.Keys;
import jakarta.servlet.http.HttpServletRequest;

/**
 * Whose bucket a request spends from. In {@code web.xml} a rule names one as {@code key=ip},
 * {@code key=header:NAME}, {@code key=principal}, {@code key=param:NAME}, or the name of a class
 * implementing this interface with a public no-argument constructor.
 *
 * <p>Any but {@code ip} may end in options that make spellings of one name one key:
 * {@code key=param:user|lower|trim}. {@code lower} lower-cases (the same in every locale),
 * {@code trim} drops leading and trailing white space, controls and invisible formatting
 * characters, {@code nfkc} applies Unicode NFKC (full-width letters, ligatures); they apply in
 * the order nfkc, trim, lower, and a key nothing is left of is missing.
 *
 * <p>Keys longer than 256 bytes are hashed before they reach a store, so a huge header can't
 * bloat it; a resolver need not bound them.
 *
 * @since 1.0
 */
@FunctionalInterface
public interface KeyResolver {

  /**
   * The key of this request, or {@code null} when it has none (then the filter's
   * {@code missing-key} policy applies: share the global key, skip the rule, or answer 400).
   * Called on the request thread, before the servlet; read the body only through the container
   * (as {@code getParameter} does), or the servlet finds it consumed.
   */
  String resolve(HttpServletRequest request);

  /** The client's address (IPv6 grouped by /64), through the given trusted proxies. */
  static KeyResolver ip(ClientAddress clients) {
    return new ServletKeys.BuiltIn(Keys.ip(clients.proxies()));
  }

  /** A request header's value; missing when the header is absent or blank. */
  static KeyResolver header(String name) {
    return new ServletKeys.BuiltIn(Keys.header(name));
  }

  /** The authenticated user's name; missing for anonymous requests. */
  static KeyResolver principal() {
    return new ServletKeys.BuiltIn(Keys.principal());
  }

  /**
   * A request parameter (query string, or a form body, which the container then parses); missing
   * when absent or blank.
   */
  static KeyResolver param(String name) {
    return new ServletKeys.BuiltIn(Keys.param(name));
  }
}

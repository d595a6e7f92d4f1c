package dev.ratelimit.servlet;

import dev.ratelimit.internal.LongKeys;
import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.InvocationTargetException;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The key kinds of a rule's {@code key=}: parsing them, the built-in resolvers (each writes
 * itself back as its spec, for messages) and bounding long keys.
 */
final class BuiltInKeys {
  static final String ALLOWED = "ip, header:NAME, principal, param:NAME, or the name of a class implementing "
      + KeyResolver.class.getName();
  private static final Pattern CLASS_NAME =
      Pattern.compile("[\\p{L}_$][\\p{L}\\p{N}_$]*(\\.[\\p{L}_$][\\p{L}\\p{N}_$]*)+");
  /** An HTTP token (RFC 9110 §5.6.2): what a header name may be. */
  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

  private BuiltInKeys() {}

  /**
   * Reads a key spec: a kind, then any options after {@code |} ({@code param:user|lower|trim}).
   * Header and parameter names can't contain {@code |}.
   *
   * @param clients how {@code ip} finds the client
   * @throws IllegalArgumentException naming the spec and the kinds or options allowed
   */
  static KeyResolver parse(String spec, ClientAddress clients, ClassLoader loader) {
    int bar = spec.indexOf('|');
    if (bar < 0) {
      return parseKind(spec, clients, loader);
    }
    String kind = spec.substring(0, bar);
    if (kind.equals("ip")) {
      throw new IllegalArgumentException("key 'ip' takes no options: addresses are normalised already, in '" + spec
          + "'");
    }
    return NormalisedKey.parse(parseKind(kind, clients, loader), spec.substring(bar + 1), spec);
  }

  private static KeyResolver parseKind(String spec, ClientAddress clients, ClassLoader loader) {
    if (spec.equals("ip")) {
      return new Ip(clients);
    }
    if (spec.equals("principal")) {
      return Principal.INSTANCE;
    }
    if (spec.startsWith("header:")) {
      String name = spec.substring("header:".length());
      if (!TOKEN.matcher(name).matches()) {
        throw new IllegalArgumentException("bad header name '" + name + "' in key '" + spec + "'; expected header:NAME");
      }
      return new Header(name);
    }
    if (spec.startsWith("param:")) {
      String name = spec.substring("param:".length());
      if (name.isEmpty()) {
        throw new IllegalArgumentException("no parameter name in key '" + spec + "'; expected param:NAME");
      }
      return new Param(name);
    }
    if (CLASS_NAME.matcher(spec).matches()) {
      return instantiate(spec, loader);
    }
    throw new IllegalArgumentException("unknown key kind '" + spec + "'; allowed: " + ALLOWED);
  }

  /** Where key resolver classes are found: the web application's loader while the container starts the filter. */
  static ClassLoader loader() {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    return context != null ? context : BuiltInKeys.class.getClassLoader();
  }

  /** A custom resolver: a class implementing {@link KeyResolver} with a public no-argument constructor. */
  static KeyResolver instantiate(String className, ClassLoader loader) {
    Class<?> type;
    try {
      type = Class.forName(className, true, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IllegalArgumentException("key resolver class '" + className + "' not found", e);
    }
    if (!KeyResolver.class.isAssignableFrom(type)) {
      throw new IllegalArgumentException("key resolver class '" + className + "' does not implement "
          + KeyResolver.class.getName());
    }
    try {
      return (KeyResolver) type.getConstructor().newInstance();
    } catch (NoSuchMethodException | IllegalAccessException | InstantiationException e) {
      throw new IllegalArgumentException("key resolver class '" + className
          + "' needs a public no-argument constructor", e);
    } catch (InvocationTargetException e) {
      throw new IllegalArgumentException("key resolver class '" + className + "' failed to construct: "
          + e.getCause(), e.getCause());
    }
  }

  /** What messages call a resolver: its spec, or its class name. */
  static String describe(KeyResolver resolver) {
    return resolver instanceof Ip || resolver instanceof Header || resolver instanceof Param
        || resolver instanceof Principal || resolver instanceof NormalisedKey
        ? resolver.toString() : resolver.getClass().getName();
  }

  /**
   * The key as it reaches the store ({@link LongKeys#bounded}, as the limiter bounds it again):
   * as is up to 256 UTF-8 bytes, else {@code sha256:} and the hex digest, so that a huge header
   * costs the store 71 bytes.
   */
  static String bounded(String key) {
    return LongKeys.bounded(key);
  }

  private static String present(String value) {
    return value == null || value.isBlank() ? null : value;
  }

  record Ip(ClientAddress clients) implements KeyResolver {
    Ip {
      Objects.requireNonNull(clients, "clients");
    }

    @Override
    public String resolve(HttpServletRequest request) {
      return clients.key(request);
    }

    @Override
    public String toString() {
      return "ip";
    }
  }

  record Header(String name) implements KeyResolver {
    Header {
      Objects.requireNonNull(name, "name");
    }

    @Override
    public String resolve(HttpServletRequest request) {
      return present(request.getHeader(name));
    }

    @Override
    public String toString() {
      return "header:" + name;
    }
  }

  record Param(String name) implements KeyResolver {
    Param {
      Objects.requireNonNull(name, "name");
    }

    @Override
    public String resolve(HttpServletRequest request) {
      return present(request.getParameter(name));
    }

    @Override
    public String toString() {
      return "param:" + name;
    }
  }

  enum Principal implements KeyResolver {
    INSTANCE;

    @Override
    public String resolve(HttpServletRequest request) {
      java.security.Principal user = request.getUserPrincipal();
      return user == null ? null : present(user.getName());
    }

    @Override
    public String toString() {
      return "principal";
    }
  }
}

package dev.ratelimit.servlet;

import dev.ratelimit.http.Keys;
import dev.ratelimit.http.RequestKey;
import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.InvocationTargetException;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The servlet side of keys: {@link KeyResolver}s as the shared contract's {@link RequestKey}s and
 * back, and the one key kind only the servlet filter has, a {@code KeyResolver} class name.
 */
final class ServletKeys {
  private static final Pattern CLASS_NAME =
      Pattern.compile("[\\p{L}_$][\\p{L}\\p{N}_$]*(\\.[\\p{L}_$][\\p{L}\\p{N}_$]*)+");

  private ServletKeys() {}

  /** A built-in key, seen as a {@link KeyResolver}: it writes itself back as its spec. */
  record BuiltIn(RequestKey key) implements KeyResolver {
    BuiltIn {
      Objects.requireNonNull(key, "key");
    }

    @Override
    public String resolve(HttpServletRequest request) {
      return key.resolve(ServletRequestView.of(request));
    }

    @Override
    public String toString() {
      return key.toString();
    }
  }

  /** An application's {@link KeyResolver}, seen as a {@link RequestKey}; messages call it by its class. */
  record Custom(KeyResolver resolver) implements RequestKey {
    Custom {
      Objects.requireNonNull(resolver, "resolver");
    }

    @Override
    public String resolve(dev.ratelimit.http.Request request) {
      return resolver.resolve((HttpServletRequest) request.unwrap());
    }

    @Override
    public String toString() {
      return resolver.getClass().getName();
    }
  }

  static RequestKey key(KeyResolver resolver) {
    return resolver instanceof BuiltIn builtIn ? builtIn.key() : new Custom(resolver);
  }

  static KeyResolver resolver(RequestKey key) {
    return key instanceof Custom custom ? custom.resolver() : new BuiltIn(key);
  }

  /** Parses a key as in {@code web.xml}: the built-in kinds, or a {@link KeyResolver} class found by {@code loader}. */
  static RequestKey parse(String spec, ClientAddress clients, ClassLoader loader) {
    return Keys.parse(spec, clients.proxies(), classNames(loader));
  }

  /** Key specs that name a class: loaded through {@code loader}. */
  static Keys.Custom classNames(ClassLoader loader) {
    return new Keys.Custom(spec -> CLASS_NAME.matcher(spec).matches(), spec -> new Custom(instantiate(spec, loader)),
        "the name of a class implementing " + KeyResolver.class.getName());
  }

  /** Where key resolver classes are found: the web application's loader while the container starts the filter. */
  static ClassLoader loader() {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    return context != null ? context : ServletKeys.class.getClassLoader();
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
}

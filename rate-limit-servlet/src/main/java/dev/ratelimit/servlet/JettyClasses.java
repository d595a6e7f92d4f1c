package dev.ratelimit.servlet;

/**
 * Jetty 12 (ee10)'s own request and response classes when this filter's class loader sees them,
 * else {@code null}. Looked up once by name so that the views link without Jetty: only
 * {@link JettyResponseView} and {@link JettyPeer} name Jetty's types, and they are loaded only for
 * a request or response of exactly these classes (a subclass or a wrapper may change what a
 * call does).
 */
final class JettyClasses {
  static final Class<?> REQUEST = find("org.eclipse.jetty.ee10.servlet.ServletApiRequest");
  static final Class<?> RESPONSE = find("org.eclipse.jetty.ee10.servlet.ServletApiResponse");

  private JettyClasses() {}

  private static Class<?> find(String name) {
    try {
      Class<?> jetty = Class.forName(name, false, JettyClasses.class.getClassLoader());
      // Jetty is an optional module of this one: read it where it is (a named module not in this
      // module's graph, or the class path)
      Module own = JettyClasses.class.getModule();
      if (!own.canRead(jetty.getModule())) {
        own.addReads(jetty.getModule());
      }
      return jetty;
    } catch (ClassNotFoundException | LinkageError | SecurityException absent) {
      return null; // another container, or Jetty's classes hidden from the web application
    }
  }
}

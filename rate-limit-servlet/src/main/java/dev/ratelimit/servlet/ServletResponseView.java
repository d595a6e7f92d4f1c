package dev.ratelimit.servlet;

import dev.ratelimit.http.Response;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/** A servlet response as the shared HTTP contract writes it. */
class ServletResponseView implements Response {
  /**
   * Jetty 12 (ee10)'s own response class when this filter's class loader sees it, else {@code null}.
   * Looked up once by name so that this class links without Jetty: only {@link JettyResponseView}
   * names Jetty's types, and it is loaded only for a response of this class.
   */
  private static final Class<?> JETTY_RESPONSE = jettyResponseClass();

  final HttpServletResponse response;

  ServletResponseView(HttpServletResponse response) {
    this.response = response;
  }

  /**
   * The view to write {@code response} through: on Jetty's own response, unwrapped, one that adds
   * ready-made fields to Jetty's headers (the same bytes, less work per response); on any other
   * (another container, or a wrapper around Jetty's: it may filter or record headers), this one.
   */
  static Response of(HttpServletResponse response) {
    // the exact class: a subclass or a wrapper may change what adding a header does
    if (response.getClass() == JETTY_RESPONSE) {
      return new JettyResponseView(response);
    }
    return new ServletResponseView(response);
  }

  @Override
  public boolean containsHeader(String name) {
    return response.containsHeader(name);
  }

  @Override
  public void addHeader(String name, String value) {
    response.addHeader(name, value);
  }

  @Override
  public void setHeader(String name, String value) {
    response.setHeader(name, value);
  }

  @Override
  public void refuse(int status, String contentType, byte[] body) {
    response.setStatus(status);
    response.setContentType(contentType);
    response.setContentLength(body.length);
    try (OutputStream out = response.getOutputStream()) {
      out.write(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Class<?> jettyResponseClass() {
    try {
      Class<?> jetty = Class.forName("org.eclipse.jetty.ee10.servlet.ServletApiResponse", false,
          ServletResponseView.class.getClassLoader());
      // Jetty is an optional module of this one: read it where it is (a named module not in this
      // module's graph, or the class path)
      Module own = ServletResponseView.class.getModule();
      if (!own.canRead(jetty.getModule())) {
        own.addReads(jetty.getModule());
      }
      return jetty;
    } catch (ClassNotFoundException | LinkageError | SecurityException absent) {
      return null; // another container, or Jetty's classes hidden from the web application
    }
  }
}

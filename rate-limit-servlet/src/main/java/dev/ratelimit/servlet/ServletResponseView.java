package dev.ratelimit.servlet;

import dev.ratelimit.http.Response;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/** A servlet response as the shared HTTP contract writes it. */
class ServletResponseView implements Response {
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
    if (response.getClass() == JettyClasses.RESPONSE) {
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
}

package dev.ratelimit.servlet;

import dev.ratelimit.http.Response;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/** A servlet response as the shared HTTP contract writes it. */
record ServletResponseView(HttpServletResponse response) implements Response {

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

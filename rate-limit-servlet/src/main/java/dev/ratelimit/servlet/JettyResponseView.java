package dev.ratelimit.servlet;

import dev.ratelimit.http.LimitHeader;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee10.servlet.ServletApiResponse;
import org.eclipse.jetty.http.HttpFields;

/**
 * Jetty 12 (ee10)'s own response, unwrapped: the rate limit headers go into the core response's
 * fields, where {@link ServletApiResponse#addHeader} puts them too (through the same wrapper,
 * which drops them once the response is committed), but mostly as fields made once
 * ({@link JettyFields}): Jetty then neither makes a field per header nor encodes its name and value
 * character by character. The bytes on the wire are the same. Everything else goes through the
 * servlet API, as {@link ServletResponseView} writes it.
 */
final class JettyResponseView extends ServletResponseView {
  private final HttpFields.Mutable fields;

  JettyResponseView(HttpServletResponse response) {
    super(response);
    this.fields = ((ServletApiResponse) response).getResponse().getHeaders();
  }

  /**
   * Read from the fields under Jetty's wrappers (which only watch changes): their own lookup runs
   * by index, where {@code contains} on a wrapper makes two iterators per call.
   */
  @Override
  public boolean containsHeader(String name) {
    HttpFields.Mutable inner = fields;
    while (inner instanceof HttpFields.Mutable.Wrapper wrapper) {
      inner = wrapper.getWrapped();
    }
    return inner.getField(name) != null;
  }

  @Override
  public void addNumber(LimitHeader header, long value) {
    fields.add(JettyFields.number(header, value));
  }

  @Override
  public void addState(String name, long remaining, long resetSeconds) {
    fields.add(JettyFields.state(name, remaining, resetSeconds));
  }

  @Override
  public void addHeader(LimitHeader header, String value, boolean repeated) {
    fields.add(repeated ? JettyFields.repeated(header, value) : JettyFields.plain(header, value));
  }
}

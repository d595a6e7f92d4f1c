package dev.ratelimit.servlet.it;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Mapped before the rate limit filter: signals a held request's end ({@link Held#finished}) once
 * the chain returned, or, for an async request, once it completed. The rate limit filter inside
 * has settled it by then (its listener was added first, so it hears the completion first).
 */
public class FinishedSignal extends HttpFilter {
  private static final long serialVersionUID = 1L;

  @Override
  protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    Held held = Held.of(request.getHeader("X-Call"));
    try {
      chain.doFilter(request, response);
    } finally {
      if (held != null) {
        if (request.isAsyncStarted()) {
          request.getAsyncContext().addListener(new AsyncListener() {
            @Override
            public void onComplete(AsyncEvent event) {
              held.finished();
            }

            @Override
            public void onTimeout(AsyncEvent event) {}

            @Override
            public void onError(AsyncEvent event) {}

            @Override
            public void onStartAsync(AsyncEvent event) {}
          });
        } else {
          held.finished();
        }
      }
    }
  }
}

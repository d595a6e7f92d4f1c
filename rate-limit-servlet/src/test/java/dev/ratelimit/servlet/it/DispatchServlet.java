package dev.ratelimit.servlet.it;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Sends a request through a second dispatch: {@code /dispatch/forward}, {@code /include},
 * {@code /error} (500, then the error page {@code /dispatch/oops}) and {@code /async}, each to
 * {@code /dispatch/target}, which names the dispatch it was reached by.
 */
public class DispatchServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException, ServletException {
    // an included servlet sees the including request's paths; its own are attributes
    Object included = request.getAttribute(RequestDispatcher.INCLUDE_PATH_INFO);
    String what = included != null ? (String) included : request.getPathInfo() == null ? "" : request.getPathInfo();
    switch (what) {
      case "/forward" -> request.getRequestDispatcher("/dispatch/target").forward(request, response);
      case "/include" -> {
        response.setContentType("text/plain");
        response.getWriter().write("include:");
        request.getRequestDispatcher("/dispatch/target").include(request, response);
      }
      case "/error" -> response.sendError(500);
      case "/async" -> {
        AsyncContext async = request.startAsync();
        async.dispatch("/dispatch/target");
      }
      case "/target", "/oops" -> {
        response.setContentType("text/plain");
        response.getWriter().write(what.substring(1) + " " + request.getDispatcherType());
      }
      default -> response.sendError(404);
    }
  }
}

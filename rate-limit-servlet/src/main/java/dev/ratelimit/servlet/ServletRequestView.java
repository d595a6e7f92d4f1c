package dev.ratelimit.servlet;

import dev.ratelimit.http.Request;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Collections;
import java.util.List;

/** A servlet request as the shared HTTP contract reads it. */
record ServletRequestView(HttpServletRequest request) implements Request {

  static ServletRequestView of(HttpServletRequest request) {
    return new ServletRequestView(request);
  }

  @Override
  public String method() {
    return request.getMethod();
  }

  /** The path within the application, decoded and normalised by the container: servlet path and path info. */
  @Override
  public String path() {
    String servletPath = request.getServletPath();
    String pathInfo = request.getPathInfo();
    String path = servletPath == null ? "" : servletPath;
    if (pathInfo != null) {
      path = path + pathInfo;
    }
    return path.isEmpty() ? "/" : path;
  }

  @Override
  public String header(String name) {
    return request.getHeader(name);
  }

  @Override
  public List<String> headers(String name) {
    return Collections.list(request.getHeaders(name));
  }

  /** Also a form body's parameter, which the container then parses, so the servlet still sees the form. */
  @Override
  public String param(String name) {
    return request.getParameter(name);
  }

  /**
   * {@code getRemoteAddr}; on Jetty's own request, unwrapped, an IPv4 peer's text kept per
   * address ({@link JettyPeer}: the same text, which Jetty would format anew on every call).
   */
  @Override
  public String peerAddress() {
    String kept = request.getClass() == JettyClasses.REQUEST ? JettyPeer.ipv4(request) : null;
    return kept != null ? kept : request.getRemoteAddr();
  }

  @Override
  public String principal() {
    Principal user = request.getUserPrincipal();
    return user == null ? null : user.getName();
  }

  @Override
  public Object unwrap() {
    return request;
  }
}

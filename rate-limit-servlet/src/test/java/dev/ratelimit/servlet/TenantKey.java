package dev.ratelimit.servlet;

import jakarta.servlet.http.HttpServletRequest;

/** A custom resolver, named by class in init-params: the tenant is the first path segment. */
public class TenantKey implements KeyResolver {
  /** The filter makes one with this. */
  public TenantKey() {}

  @Override
  public String resolve(HttpServletRequest request) {
    String path = request.getServletPath();
    int end = path.indexOf('/', 1);
    return end < 0 ? null : path.substring(1, end);
  }
}

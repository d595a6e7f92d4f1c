package dev.ratelimit.servlet.it;

import dev.ratelimit.servlet.KeyResolver;
import jakarta.servlet.http.HttpServletRequest;

/** A key resolver named by class in web.xml: the container's web application loader must find it. */
public class TenantHeaderKey implements KeyResolver {
  @Override
  public String resolve(HttpServletRequest request) {
    String tenant = request.getHeader("X-Tenant");
    return tenant == null ? null : "tenant:" + tenant;
  }
}

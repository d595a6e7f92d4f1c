package dev.ratelimit.spring;

import org.springframework.util.ClassUtils;

/**
 * {@code #principal} in SpEL keys and counts: the authenticated user's name, or null (the limit's
 * global key) when nobody is authenticated. With Spring Security, its {@code SecurityContextHolder}
 * (anonymous users are nobody); without it, the current servlet request's user principal. Read
 * without a compile-time dependency on either, so that this module works with neither.
 *
 * @since 1.0
 */
public final class AuthenticatedUser {
  private static final ClassLoader LOADER = AuthenticatedUser.class.getClassLoader();
  private static final boolean SECURITY =
      ClassUtils.isPresent("org.springframework.security.core.context.SecurityContextHolder", LOADER);
  private static final boolean SERVLET_WEB =
      ClassUtils.isPresent("org.springframework.web.context.request.RequestContextHolder", LOADER)
          && ClassUtils.isPresent("jakarta.servlet.http.HttpServletRequest", LOADER);

  private AuthenticatedUser() {}

  /** The current user's name, or {@code null} when nobody is authenticated. */
  public static String name() {
    if (SECURITY) {
      return Security.name();
    }
    return SERVLET_WEB ? Servlet.name() : null;
  }

  /**
   * The current user's name, or {@code null}: with Spring Security, its authentication; without,
   * {@code requestPrincipal} (a servlet filter's request, when Spring's request context may not be there yet).
   */
  public static String name(java.security.Principal requestPrincipal) {
    if (SECURITY) {
      return Security.name();
    }
    return requestPrincipal == null ? null : present(requestPrincipal.getName());
  }

  /** Loaded only with Spring Security. */
  private static final class Security {
    static String name() {
      org.springframework.security.core.Authentication authentication =
          org.springframework.security.core.context.SecurityContextHolder.getContext().getAuthentication();
      if (authentication == null || !authentication.isAuthenticated()
          || authentication instanceof org.springframework.security.authentication.AnonymousAuthenticationToken) {
        return null;
      }
      return present(authentication.getName());
    }
  }

  /** Loaded only with spring-web and the servlet API. */
  private static final class Servlet {
    static String name() {
      if (org.springframework.web.context.request.RequestContextHolder.getRequestAttributes()
          instanceof org.springframework.web.context.request.ServletRequestAttributes attributes) {
        java.security.Principal user = attributes.getRequest().getUserPrincipal();
        return user == null ? null : present(user.getName());
      }
      return null;
    }
  }

  private static String present(String name) {
    return name == null || name.isBlank() ? null : name;
  }
}

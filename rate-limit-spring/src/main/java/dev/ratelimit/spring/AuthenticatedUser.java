package dev.ratelimit.spring;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;
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

  /**
   * The current user's authorities ({@code ROLE_OPERATOR}, {@code SCOPE_api}, what Spring
   * Security's {@code GrantedAuthority.getAuthority()} says), empty when nobody is authenticated
   * or without Spring Security: from its {@code SecurityContextHolder}, as {@link #name()}.
   */
  public static Set<String> authorities() {
    return SECURITY ? Security.authorities(Security.current()) : Set.of();
  }

  /**
   * The authorities of a user a reactive front end read ({@code exchange.getPrincipal()}: with
   * Spring Security, its {@code Authentication}); empty for null, an anonymous or an
   * unauthenticated user, a principal that is no {@code Authentication}, or without Spring Security.
   */
  public static Set<String> authorities(java.security.Principal user) {
    return SECURITY ? Security.authorities(user) : Set.of();
  }

  /** Loaded only with Spring Security. */
  private static final class Security {
    static String name() {
      org.springframework.security.core.Authentication authentication = current();
      return authenticated(authentication) ? present(authentication.getName()) : null;
    }

    static org.springframework.security.core.Authentication current() {
      return org.springframework.security.core.context.SecurityContextHolder.getContext().getAuthentication();
    }

    static Set<String> authorities(java.security.Principal user) {
      if (!(user instanceof org.springframework.security.core.Authentication authentication)
          || !authenticated(authentication)) {
        return Set.of();
      }
      Set<String> names = new LinkedHashSet<>();
      for (org.springframework.security.core.GrantedAuthority authority : authentication.getAuthorities()) {
        if (authority != null && authority.getAuthority() != null) {
          names.add(authority.getAuthority());
        }
      }
      return Collections.unmodifiableSet(names);
    }

    /** Anonymous users are nobody. */
    private static boolean authenticated(org.springframework.security.core.Authentication authentication) {
      return authentication != null && authentication.isAuthenticated()
          && !(authentication instanceof org.springframework.security.authentication.AnonymousAuthenticationToken);
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

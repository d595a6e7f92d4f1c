package dev.ratelimit.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.Principal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;

/** {@code #authorities}: the authenticated user's, and nobody's for an anonymous or unauthenticated one. */
class AuthenticatedUserTest {

  @AfterEach
  void clear() {
    SecurityContextHolder.clearContext();
  }

  @Test
  void authorities_ofTheCurrentUser_areTheirAuthorities_nobodyHasNone() {
    assertThat(AuthenticatedUser.authorities()).isEmpty();
    SecurityContextHolder.getContext().setAuthentication(UsernamePasswordAuthenticationToken.authenticated("ann", "n/a",
        AuthorityUtils.createAuthorityList("ROLE_USER", "PLAN_PRO")));
    assertThat(AuthenticatedUser.authorities()).containsExactly("ROLE_USER", "PLAN_PRO");
    SecurityContextHolder.getContext().setAuthentication(new AnonymousAuthenticationToken("key", "anonymousUser",
        AuthorityUtils.createAuthorityList("ROLE_ANONYMOUS")));
    assertThat(AuthenticatedUser.authorities()).as("anonymous is nobody").isEmpty();
  }

  @Test
  void authorities_ofAGivenUser_needAnAuthenticatedAuthentication() {
    assertThat(AuthenticatedUser.authorities(UsernamePasswordAuthenticationToken.authenticated("ann", "n/a",
        AuthorityUtils.createAuthorityList("ROLE_INTERNAL")))).containsExactly("ROLE_INTERNAL");
    assertThat(AuthenticatedUser.authorities(UsernamePasswordAuthenticationToken.unauthenticated("ann", "guess")))
        .as("credentials not yet checked").isEmpty();
    assertThat(AuthenticatedUser.authorities(new AnonymousAuthenticationToken("key", "anonymousUser",
        AuthorityUtils.createAuthorityList("ROLE_ANONYMOUS")))).isEmpty();
    Principal named = () -> "ann";
    assertThat(AuthenticatedUser.authorities(named)).as("a principal that is no Authentication").isEmpty();
    assertThat(AuthenticatedUser.authorities((Principal) null)).isEmpty();
  }
}

package dev.ratelimit.example;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.spring.RateLimited;
import java.util.Locale;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.core.userdetails.UsernameNotFoundException;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.stereotype.Service;

/**
 * A password check: every attempt costs one unit of the user's "login" limit, and a success gives
 * them all back (reset), so only failed attempts add up. The key is the user name as typed,
 * trimmed and lower-cased, so that "Ann " and "ANN" guess against one budget.
 */
@Service
public class LoginService {
  private final RateLimiter limiter;
  private final UserDetailsService users;
  private final PasswordEncoder passwords = PasswordEncoderFactories.createDelegatingPasswordEncoder();

  public LoginService(RateLimiter limiter, UserDetailsService users) {
    this.limiter = limiter;
    this.users = users;
  }

  @RateLimited(name = "login", key = "#username.trim().toLowerCase(T(java.util.Locale).ROOT)")
  public boolean login(String username, String password) {
    String normalised = username.trim().toLowerCase(Locale.ROOT);
    UserDetails user;
    try {
      user = users.loadUserByUsername(normalised);
    } catch (UsernameNotFoundException e) {
      return false;
    }
    boolean ok = passwords.matches(password, user.getPassword());
    if (ok) {
      limiter.reset("login", normalised);
    }
    return ok;
  }
}

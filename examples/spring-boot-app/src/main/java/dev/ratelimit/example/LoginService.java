package dev.ratelimit.example;

import dev.ratelimit.spring.RateLimited;
import java.util.Locale;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.core.userdetails.UsernameNotFoundException;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.stereotype.Service;

/**
 * A password check limited on failures only: each attempt is charged one unit of the user's
 * "login" limit up front (so concurrent guesses can never overshoot) and a success is refunded
 * ({@code chargeIf}), so only failed attempts add up. The key is the user name as typed, trimmed
 * and lower-cased, so that "Ann " and "ANN" guess against one budget.
 */
@Service
public class LoginService {
  private final UserDetailsService users;
  private final PasswordEncoder passwords = PasswordEncoderFactories.createDelegatingPasswordEncoder();

  public LoginService(UserDetailsService users) {
    this.users = users;
  }

  @RateLimited(name = "login", key = "#username.trim().toLowerCase(T(java.util.Locale).ROOT)",
      chargeIf = "#result == false")
  public boolean login(String username, String password) {
    String normalised = username.trim().toLowerCase(Locale.ROOT);
    UserDetails user;
    try {
      user = users.loadUserByUsername(normalised);
    } catch (UsernameNotFoundException e) {
      return false;
    }
    return passwords.matches(password, user.getPassword());
  }
}

package dev.ratelimit.example;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.spring.RateLimited;
import java.util.Map;
import org.springframework.stereotype.Service;

/**
 * Logins: every attempt costs one unit of the user's "login" limit, and a success gives them all
 * back (reset), so only failed attempts add up.
 */
@Service
public class LoginService {
  private static final Map<String, String> PASSWORDS = Map.of("ann", "secret", "bob", "hunter2");

  private final RateLimiter limiter;

  public LoginService(RateLimiter limiter) {
    this.limiter = limiter;
  }

  @RateLimited(name = "login", key = "#user")
  public boolean login(String user, String password) {
    boolean ok = password.equals(PASSWORDS.get(user));
    if (ok) {
      limiter.reset("login", user);
    }
    return ok;
  }
}

package dev.ratelimit.example;

import java.util.Map;
import org.springframework.stereotype.Component;

/**
 * Who is on which plan: the application's own accounts (a map here, a database in an
 * application). The {@code /search} rule reads it as {@code plan: "#{@plans.of(#principal)}"}, so
 * the plan follows the authenticated user; a header a client sends plays no part.
 */
@Component("plans")
public class Plans {
  private final Map<String, String> plans = Map.of("cy", "pro");

  /** The user's plan, or null (nobody, or no plan): the limit's default plan. */
  public String of(String user) {
    return user == null ? null : plans.get(user);
  }
}

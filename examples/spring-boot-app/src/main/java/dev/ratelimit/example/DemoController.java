package dev.ratelimit.example;

import java.security.Principal;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * The demo's endpoints. {@code /api/**} is limited by the servlet filter per client address,
 * {@code /me} and {@code /search} per authenticated user (application.yml); the others by
 * {@code @RateLimited} on the services they call, per authenticated user (HTTP basic,
 * {@link SecurityConfiguration}).
 */
@RestController
public class DemoController {
  private final MessageService messages;
  private final CompletionService completions;
  private final LoginService logins;
  private final ReportService reports;

  public DemoController(MessageService messages, CompletionService completions, LoginService logins,
      ReportService reports) {
    this.messages = messages;
    this.completions = completions;
    this.logins = logins;
    this.reports = reports;
  }

  @GetMapping("/api/hello")
  public Map<String, String> hello() {
    return Map.of("message", "hello");
  }

  @GetMapping("/me")
  public Map<String, String> me(Principal user) {
    return Map.of("user", user.getName());
  }

  /** Limited per user on the user's plan ({@link Plans}); internal services are not limited (application.yml). */
  @GetMapping("/search")
  public Map<String, String> search(Principal user, @RequestParam(defaultValue = "") String q) {
    return Map.of("user", user.getName(), "results", "for '" + q + "'");
  }

  @PostMapping("/messages")
  public Map<String, String> send(Principal user, @RequestParam String text) {
    return Map.of("result", messages.send(user.getName(), text));
  }

  /** {@code maxTokens} comes from the client: checked here, before it costs anything or reaches the model. */
  @PostMapping("/completions")
  public Map<String, String> complete(@RequestParam String prompt, @RequestParam(defaultValue = "50") int maxTokens) {
    if (maxTokens < 1 || maxTokens > CompletionService.MAX_TOKENS) {
      throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
          "maxTokens must be from 1 to " + CompletionService.MAX_TOKENS + " but was " + maxTokens);
    }
    return Map.of("result", completions.complete(prompt, maxTokens));
  }

  @PostMapping("/login")
  public ResponseEntity<Map<String, String>> login(@RequestParam String user, @RequestParam String password) {
    return logins.login(user, password)
        ? ResponseEntity.ok(Map.of("result", "welcome " + user.trim()))
        : ResponseEntity.status(401).body(Map.of("result", "wrong password"));
  }

  @GetMapping("/reports/export")
  public Map<String, String> export() {
    return Map.of("result", reports.export());
  }
}

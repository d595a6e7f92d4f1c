package dev.ratelimit.example;

import java.util.Map;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The demo's endpoints. {@code /api/**} is limited by the servlet filter per client address
 * (application.yml); the others by {@code @RateLimited} on the services they call, per user
 * (the {@code X-User} header stands in for authentication).
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

  @PostMapping("/messages")
  public Map<String, String> send(@RequestHeader("X-User") String user, @RequestParam String text) {
    return Map.of("result", messages.send(user, text));
  }

  @PostMapping("/completions")
  public Map<String, String> complete(@RequestHeader("X-User") String user, @RequestParam String prompt,
      @RequestParam(defaultValue = "50") int maxTokens) {
    return Map.of("result", completions.complete(user, prompt, maxTokens));
  }

  @PostMapping("/login")
  public ResponseEntity<Map<String, String>> login(@RequestParam String user, @RequestParam String password) {
    return logins.login(user, password)
        ? ResponseEntity.ok(Map.of("result", "welcome " + user))
        : ResponseEntity.status(401).body(Map.of("result", "wrong password"));
  }

  @GetMapping("/reports/export")
  public Map<String, String> export() {
    return Map.of("result", reports.export());
  }
}

package dev.ratelimit.example.webflux;

import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * The example's endpoints. {@code /api/**} is limited by the WebFilter per client address and
 * {@code /partners/**} per {@code X-Api-Key} (application.yml); {@code /messages} by
 * {@code @RateLimited} on {@link MessageService}, per sender. {@link PartnerKeys} has checked the
 * API key of every request to these two.
 */
@RestController
public class ExampleController {
  private final MessageService messages;

  public ExampleController(MessageService messages) {
    this.messages = messages;
  }

  @GetMapping("/api/hello")
  public Mono<Map<String, String>> hello() {
    return Mono.just(Map.of("message", "hello"));
  }

  @GetMapping("/partners/orders")
  public Mono<Map<String, String>> orders(@RequestHeader("X-Api-Key") String partner) {
    return Mono.just(Map.of("orders", "for " + partner));
  }

  @PostMapping("/messages")
  public Mono<Map<String, String>> send(@RequestHeader("X-Api-Key") String partner, @RequestParam String text) {
    return messages.send(partner, text).map(sent -> Map.of("result", sent));
  }
}

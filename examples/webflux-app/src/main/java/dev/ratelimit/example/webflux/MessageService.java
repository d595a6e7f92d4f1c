package dev.ratelimit.example.webflux;

import dev.ratelimit.spring.RateLimited;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Mono;

/**
 * Sending a message costs one unit of the sender's "send-message" limit: the partner whose API
 * key {@link PartnerKeys} checked, passed by the controller (in WebFlux no user is bound to the
 * thread, so the sender is a parameter). The limit applies when the {@code Mono} is subscribed,
 * through the store's async API: a denial is an error signal ({@code RateLimitExceededException}),
 * answered as a 429 by the auto-configured {@code RateLimitExceptionHandler}.
 */
@Service
public class MessageService {

  @RateLimited(name = "send-message", key = "#sender")
  public Mono<String> send(String sender, String text) {
    return Mono.fromSupplier(() -> sender + " sent: " + text);
  }
}

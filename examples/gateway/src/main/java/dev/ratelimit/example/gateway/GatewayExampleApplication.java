package dev.ratelimit.example.gateway;

import java.util.Set;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;

/**
 * A gateway in front of a backend it starts itself ({@link Backend}), so that it runs alone:
 * routes and limits in application.yml.
 */
@SpringBootApplication
public class GatewayExampleApplication {

  public static void main(String[] args) {
    SpringApplication.run(GatewayExampleApplication.class, args);
  }

  @Bean(destroyMethod = "close")
  Backend backend(@Value("${backend.port}") int port) {
    return Backend.start(port);
  }

  /**
   * The {@code /orders/**} route's key for the stock {@code RequestRateLimiter}: the partner whose
   * API key the caller sends, when it is one of {@code partners.api-keys}. A key no partner has, or
   * none, is an empty key, which that filter refuses (403, its {@code deny-empty-key}): the header
   * is the client's to write, and a made-up key per request would otherwise be a fresh bucket each
   * time.
   */
  @Bean
  KeyResolver partnerKey(@Value("${partners.api-keys}") Set<String> keys) {
    Set<String> known = Set.copyOf(keys);
    return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Api-Key"))
        .filter(known::contains);
  }
}

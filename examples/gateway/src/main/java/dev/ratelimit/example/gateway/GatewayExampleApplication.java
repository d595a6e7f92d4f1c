package dev.ratelimit.example.gateway;

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
   * The {@code /orders/**} route's key for the stock {@code RequestRateLimiter}: the caller's API
   * key. None is an empty key, which that filter refuses (403, its {@code deny-empty-key}).
   */
  @Bean
  KeyResolver apiKey() {
    return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Api-Key"));
  }
}

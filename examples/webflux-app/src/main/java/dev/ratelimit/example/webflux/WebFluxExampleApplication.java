package dev.ratelimit.example.webflux;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A reactive app on Reactor Netty: limits from application.yml, filter rules on {@code /api/**}
 * and {@code /partners/**}, {@code @RateLimited} on a {@code Mono} method.
 */
@SpringBootApplication
public class WebFluxExampleApplication {

  public static void main(String[] args) {
    SpringApplication.run(WebFluxExampleApplication.class, args);
  }
}

package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.spring.RateLimited;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/** An application that handles RateLimitExceededException itself keeps its own answer. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = OwnExceptionHandlerHttpTest.App.class, properties = "ratelimit.limits.once=token-bucket rate=1 period=1h")
class OwnExceptionHandlerHttpTest {

  @LocalServerPort
  int port;

  @AppWithoutSecurity
  static class App {
    @Service
    static class Once {
      @RateLimited(name = "once")
      public String call() {
        return "done";
      }
    }

    @RestController
    static class Endpoint {
      private final Once once;

      Endpoint(Once once) {
        this.once = once;
      }

      @GetMapping("/once")
      String once() {
        return once.call();
      }
    }

    @RestControllerAdvice
    static class OwnHandler {
      @ExceptionHandler(RateLimitExceededException.class)
      ResponseEntity<String> slowDown(RateLimitExceededException e) {
        return ResponseEntity.status(503).body("slow down, " + e.limitName());
      }
    }
  }

  @Test
  void applicationsOwnHandler_answersInsteadOfThe429() throws Exception {
    HttpClient client = HttpClient.newHttpClient();
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/once")).build();
    assertThat(client.send(request, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    HttpResponse<String> denied = client.send(request, HttpResponse.BodyHandlers.ofString());
    assertThat(denied.statusCode()).isEqualTo(503);
    assertThat(denied.body()).isEqualTo("slow down, once");
  }
}

package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Boot app with the endpoint exposed as the docs show it, no Spring Security and no access
 * granted: anyone who reaches it can read, and nobody can write. An anonymous client that spent
 * its bucket can neither reset it nor raise the limit; the endpoint's writes are not even mapped.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = RateLimitsEndpointAccessHttpTest.App.class,
    properties = {
        "ratelimit.limits.api=token-bucket rate=5 period=1h",
        "ratelimit.filter.rules[0].path=/api/**",
        "ratelimit.filter.rules[0].limit=api",
        "management.endpoints.web.exposure.include=health,ratelimits"})
class RateLimitsEndpointAccessHttpTest {
  private final HttpClient client = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @AppWithoutSecurity
  static class App {
    /** Time stands still: the bucket refills only if a write resets it. */
    @Bean
    ManualClock clock() {
      return new ManualClock(1_767_225_600_000L);
    }

    @RestController
    static class Endpoints {
      @GetMapping("/api/data")
      String data() {
        return "data";
      }
    }
  }

  @Test
  void byDefault_anonymousWritesAreRefused405_theBucketAndTheLimitStay_andReadsWork() throws Exception {
    assertThat(admittedOf(50)).isEqualTo(5);

    HttpResponse<String> state = send("GET", "/actuator/ratelimits/api/127.0.0.1", null);
    assertThat(state.statusCode()).isEqualTo(200);
    assertThat(state.body()).contains("\"remaining\":0.0");
    assertThat(send("GET", "/actuator/ratelimits/api?key=127.0.0.1", null).body()).contains("\"remaining\":0.0");

    // Boot maps no write operation of an endpoint whose access is read-only: the path's GET answers 405 for the rest
    assertThat(send("DELETE", "/actuator/ratelimits/api/127.0.0.1", null).statusCode()).isEqualTo(405);
    assertThat(send("DELETE", "/actuator/ratelimits/api?key=127.0.0.1", null).statusCode()).isEqualTo(405);
    HttpResponse<String> raise = send("POST", "/actuator/ratelimits/api",
        "{\"spec\": \"token-bucket rate=1000000000 period=1s\"}");
    assertThat(raise.statusCode()).isEqualTo(405);

    assertThat(admittedOf(100)).as("nothing reset, nothing raised").isZero();
    assertThat(send("GET", "/actuator/ratelimits", null).body())
        .contains("\"spec\":\"token-bucket rate=5 period=1h\"");
  }

  private int admittedOf(int requests) throws Exception {
    int admitted = 0;
    for (int i = 0; i < requests; i++) {
      int status = send("GET", "/api/data", null).statusCode();
      assertThat(status).isIn(200, 429);
      admitted += status == 200 ? 1 : 0;
    }
    return admitted;
  }

  private HttpResponse<String> send(String method, String path, String json) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path));
    if (json == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}

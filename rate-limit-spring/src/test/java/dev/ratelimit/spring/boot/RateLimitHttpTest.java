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
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/** What an HTTP client sees from a real Boot app on a random port: the filter and the annotation. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = RateLimitHttpTest.App.class,
    properties = {
        "ratelimit.limits.api=token-bucket rate=3 period=1m",
        "ratelimit.limits.send=token-bucket rate=2 period=1m",
        "ratelimit.limits.tenants=token-bucket rate=1 period=1h",
        "ratelimit.filter.rules[0].path=/api/**",
        "ratelimit.filter.rules[0].limit=api",
        "ratelimit.filter.rules[1].path=/tenant/**",
        "ratelimit.filter.rules[1].limit=tenants",
        "ratelimit.filter.rules[1].key=#{#request.getHeader('X-Tenant')}"})
class RateLimitHttpTest {
  private final HttpClient client = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @AppWithoutSecurity
  static class App {
    @RestController
    static class Endpoints {
      private final Sender sender;

      Endpoints(Sender sender) {
        this.sender = sender;
      }

      @GetMapping("/api/things")
      String things() {
        return "things";
      }

      @GetMapping("/tenant/data")
      String tenant() {
        return "data";
      }

      @GetMapping("/send")
      String send(@RequestHeader("X-User") String user) {
        return sender.send(user);
      }

      @GetMapping("/health-check")
      String health() {
        return "ok";
      }
    }

    @Service
    static class Sender {
      @RateLimited(name = "send", key = "#user")
      public String send(String user) {
        return "sent by " + user;
      }
    }
  }

  private HttpResponse<String> get(String path, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path));
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void filterRule_admitsCapacityThen429WithHeadersRetryAfterAndProblemBody() throws Exception {
    for (int left = 2; left >= 0; left--) {
      HttpResponse<String> admitted = get("/api/things");
      assertThat(admitted.statusCode()).isEqualTo(200);
      assertThat(admitted.headers().firstValue("X-RateLimit-Remaining")).contains(Integer.toString(left));
      assertThat(admitted.headers().firstValue("RateLimit-Policy")).contains("\"api\";q=3;w=60");
    }
    HttpResponse<String> denied = get("/api/things");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.headers().firstValue("Retry-After")).contains("20");
    assertThat(denied.headers().firstValue("Content-Type")).contains("application/problem+json");
    assertThat(denied.body()).contains("\"title\":\"Too Many Requests\"").contains("\"limit\":\"api\"")
        .contains("\"instance\":\"/api/things\"");
    HttpResponse<String> unlimited = get("/health-check");
    assertThat(unlimited.statusCode()).isEqualTo(200);
    assertThat(unlimited.headers().firstValue("X-RateLimit-Limit")).isEmpty();
  }

  @Test
  void filterRule_withASpelKey_limitsPerTenant() throws Exception {
    assertThat(get("/tenant/data", "X-Tenant", "acme").statusCode()).isEqualTo(200);
    assertThat(get("/tenant/data", "X-Tenant", "acme").statusCode()).isEqualTo(429);
    assertThat(get("/tenant/data", "X-Tenant", "globex").statusCode()).isEqualTo(200);
  }

  @Test
  void rateLimitedMethod_admittedCallsGetHeaders_andADenialIsThe429() throws Exception {
    HttpResponse<String> first = get("/send", "X-User", "ann");
    assertThat(first.body()).isEqualTo("sent by ann");
    assertThat(first.headers().firstValue("X-RateLimit-Remaining")).contains("1");
    assertThat(first.headers().firstValue("RateLimit")).contains("\"send\";r=1;t=30");
    get("/send", "X-User", "ann");
    HttpResponse<String> denied = get("/send", "X-User", "ann");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.headers().firstValue("Retry-After")).contains("30");
    assertThat(denied.headers().allValues("X-RateLimit-Remaining")).containsExactly("0");
    assertThat(denied.body()).contains("\"limit\":\"send\"").contains("\"retryAfter\":30");
    assertThat(RateLimitExceededException.class).isNotNull();
  }
}

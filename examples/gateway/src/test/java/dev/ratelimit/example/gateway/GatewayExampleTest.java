package dev.ratelimit.example.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.http.contract.ClientSees;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The example as a client sees it: the gateway with Boot's own auto-configuration on a random
 * port, routing to the backend it starts itself, asserted with the expectations every front end
 * shares ({@link ClientSees}); the backend counts what reached it. The limiter's clock stands
 * still, so the headers' seconds are exact.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class GatewayExampleTest {
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();

  @LocalServerPort
  int port;

  @Autowired
  Backend backend;

  /** The backend's port: a free one, since the routes' URIs name it when the gateway starts. */
  @DynamicPropertySource
  static void backendPort(DynamicPropertyRegistry registry) {
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int free = probe.getLocalPort();
      registry.add("backend.port", () -> free);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @TestConfiguration
  static class FrozenClock {
    /** On a minute boundary, so that the fixed window's reset is a whole minute. */
    @Bean
    ManualClock rateLimitClock() {
      return new ManualClock(1_700_000_040_000L);
    }
  }

  private HttpResponse<String> get(String path, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .GET().timeout(Duration.ofSeconds(30));
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static ClientSees seen(HttpResponse<String> response) {
    return new ClientSees(response.statusCode(), name -> response.headers().firstValue(name).orElse(null),
        response.body());
  }

  @Test
  void rateLimitRoute_admitsCapacityToTheBackendThenAnswersThe429_andDeniedRequestsNeverReachIt() throws Exception {
    long before = backend.calls();
    for (int remaining = 4; remaining >= 0; remaining--) {
      HttpResponse<String> admitted = get("/api/hello");
      assertThat(admitted.statusCode()).isEqualTo(200);
      assertThat(admitted.body()).startsWith("{\"backend\":\"/api/hello\",\"call\":");
      seen(admitted).hasRateLimitHeaders("api", 5, 10, remaining, (5 - remaining) * 2L);
    }
    for (int i = 0; i < 3; i++) {
      seen(get("/api/hello")).hasRateLimitHeaders("api", 5, 10, 0, 10).isRateLimited("api", 2, "/api/hello");
    }
    assertThat(backend.calls() - before).as("requests that reached the backend").isEqualTo(5);
  }

  @Test
  void requestRateLimiterRoute_onRateLimitGatewayLimiter_deniesExactlyPastTheLimit() throws Exception {
    long before = backend.calls();
    for (int remaining = 2; remaining >= 0; remaining--) {
      HttpResponse<String> admitted = get("/orders/42", "X-Api-Key", "acme");
      assertThat(admitted.statusCode()).isEqualTo(200);
      assertThat(admitted.body()).startsWith("{\"backend\":\"/orders/42\",\"call\":");
      seen(admitted).hasRateLimitHeaders("orders", 3, 60, remaining, 60);
    }
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> denied = get("/orders/42", "X-Api-Key", "acme");
      assertThat(denied.statusCode()).isEqualTo(429);
      seen(denied).hasRateLimitHeaders("orders", 3, 60, 0, 60);
      assertThat(denied.headers().firstValue("Retry-After")).contains("60");
    }
    assertThat(backend.calls() - before).as("requests that reached the backend").isEqualTo(3);
    assertThat(get("/orders/42", "X-Api-Key", "globex").statusCode()).as("another key, another window").isEqualTo(200);
    assertThat(get("/orders/42").statusCode()).as("no key: RequestRateLimiter's deny-empty-key").isEqualTo(403);
    assertThat(backend.calls() - before).isEqualTo(4);
  }

  @Test
  void requestRateLimiterRoute_aKeyNoPartnerHas_isRefusedAndNeverReachesTheBackend() throws Exception {
    long before = backend.calls();
    for (int i = 0; i < 20; i++) {
      HttpResponse<String> madeUp = get("/orders/42", "X-Api-Key", "made-up-" + i);
      assertThat(madeUp.statusCode()).as("deny-empty-key").isEqualTo(403);
      seen(madeUp).hasNoRateLimitHeaders();
    }
    assertThat(backend.calls() - before).as("requests that reached the backend").isZero();
  }
}

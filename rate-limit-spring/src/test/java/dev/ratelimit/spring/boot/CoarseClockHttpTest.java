package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Clock;
import dev.ratelimit.limiter.RateLimiter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code ratelimit.clock=coarse} in a real app (docs/design.md §2.3): the limiter and its
 * in-memory store read {@link Clock#coarse()}, and a client sees the same limit as on the exact
 * clock: three requests, then a 429 whose wait is the whole refill of one unit, never shorter.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = CoarseClockHttpTest.App.class,
    properties = {
        "ratelimit.clock=coarse",
        "ratelimit.limits.api=token-bucket rate=3 period=1h",
        "ratelimit.filter.rules[0].path=/api/**",
        "ratelimit.filter.rules[0].limit=api"})
class CoarseClockHttpTest {
  private final HttpClient client = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @Autowired
  RateLimiter limiter;

  @AppWithoutSecurity
  static class App {
    @RestController
    static class Endpoints {
      @GetMapping("/api/things")
      String things() {
        return "things";
      }
    }
  }

  @Test
  void theLimiterReadsTheCoarseClock_andAClientSeesTheLimitAsOnTheExactOne() throws Exception {
    assertThat(limiter.clock()).isSameAs(Clock.coarse());
    assertThat(((dev.ratelimit.store.InMemoryStore) limiter.store()).clock()).isSameAs(Clock.coarse());
    for (int i = 0; i < 3; i++) {
      assertThat(get().statusCode()).isEqualTo(200);
    }
    HttpResponse<String> denied = get();
    assertThat(denied.statusCode()).isEqualTo(429);
    // one unit comes back in 20 minutes: never announced sooner
    long retryAfter = Long.parseLong(denied.headers().firstValue("Retry-After").orElseThrow());
    assertThat(retryAfter).isBetween(1_199L, 1_200L);
  }

  private HttpResponse<String> get() throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/api/things")).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}

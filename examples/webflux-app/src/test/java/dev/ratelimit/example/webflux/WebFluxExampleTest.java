package dev.ratelimit.example.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.http.contract.ClientSees;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

/**
 * The example as a client sees it: the app with Boot's own auto-configuration on Reactor Netty,
 * on a random port, asserted with the expectations every front end shares ({@link ClientSees}).
 * The limiter's clock stands still, so the headers' seconds are exact however slow the machine.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class WebFluxExampleTest {
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();

  @LocalServerPort
  int port;

  @TestConfiguration
  static class FrozenClock {
    /** On a minute boundary, so that the fixed window's reset is a whole minute. */
    @Bean
    ManualClock rateLimitClock() {
      return new ManualClock(1_700_000_040_000L);
    }
  }

  private HttpResponse<String> send(String method, String path, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30));
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
  void api_isLimitedPerClientAddressByTheFilterRule() throws Exception {
    for (int remaining = 4; remaining >= 0; remaining--) {
      HttpResponse<String> admitted = send("GET", "/api/hello");
      assertThat(admitted.statusCode()).isEqualTo(200);
      assertThat(admitted.body()).isEqualTo("{\"message\":\"hello\"}");
      seen(admitted).hasRateLimitHeaders("api", 5, 10, remaining, (5 - remaining) * 2L);
    }
    seen(send("GET", "/api/hello")).hasRateLimitHeaders("api", 5, 10, 0, 10).isRateLimited("api", 2, "/api/hello");
  }

  @Test
  void partners_areLimitedPerApiKeyByTheHeaderRule() throws Exception {
    for (int remaining = 2; remaining >= 0; remaining--) {
      HttpResponse<String> admitted = send("GET", "/partners/orders", "X-Api-Key", "acme");
      assertThat(admitted.body()).isEqualTo("{\"orders\":\"for acme\"}");
      seen(admitted).hasRateLimitHeaders("partner", 3, 60, remaining, 60);
    }
    seen(send("GET", "/partners/orders", "X-Api-Key", "acme")).isRateLimited("partner", 60, "/partners/orders");
    // another key, another window
    seen(send("GET", "/partners/orders", "X-Api-Key", "globex")).hasRateLimitHeaders("partner", 3, 60, 2, 60);
  }

  @Test
  void partners_aMadeUpOrMissingKeyIsRefused401BeforeItCounts_noFreshBucketPerKey() throws Exception {
    for (int i = 0; i < 20; i++) {
      HttpResponse<String> madeUp = send("GET", "/partners/orders", "X-Api-Key", "made-up-" + i);
      assertThat(madeUp.statusCode()).isEqualTo(401);
      seen(madeUp).hasNoRateLimitHeaders();
      assertThat(send("POST", "/messages?text=hi", "X-Api-Key", "made-up-" + i).statusCode()).isEqualTo(401);
    }
    assertThat(send("GET", "/partners/orders").statusCode()).isEqualTo(401);
    assertThat(send("POST", "/messages?text=hi").statusCode()).isEqualTo(401);
  }

  @Test
  void messages_rateLimitedMonoMethodAnswers429WithTheLimitsHeaders() throws Exception {
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> sent = send("POST", "/messages?text=hi", "X-Api-Key", "acme");
      assertThat(sent.statusCode()).isEqualTo(200);
      assertThat(sent.body()).isEqualTo("{\"result\":\"acme sent: hi\"}");
    }
    seen(send("POST", "/messages?text=hi", "X-Api-Key", "acme")).hasRateLimitHeaders("send-message", 3, 18, 0, 18)
        .isRateLimited("send-message", 6, "/messages");
    assertThat(send("POST", "/messages?text=hi", "X-Api-Key", "globex").body()).as("globex has its own bucket")
        .isEqualTo("{\"result\":\"globex sent: hi\"}");
    assertThat(send("POST", "/messages?text=hi&user=globex", "X-Api-Key", "acme").statusCode())
        .as("the sender is the key's partner, whatever the request names").isEqualTo(429);
  }

  @Test
  void requestsNoRuleMatches_haveNoRateLimitHeaders() throws Exception {
    HttpResponse<String> unknown = send("GET", "/nothing-here");
    assertThat(unknown.statusCode()).isEqualTo(404);
    seen(unknown).hasNoRateLimitHeaders();
  }
}

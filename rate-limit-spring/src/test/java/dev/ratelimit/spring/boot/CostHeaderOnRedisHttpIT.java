package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.redis.RedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A filter rule's {@code cost-header} on the servlet filter of a real Boot app (embedded Tomcat,
 * random port) deciding on a real redis-server: each request is charged the rule's estimate up
 * front and settled with what the application stated, from a plain handler and from one Spring MVC
 * answers asynchronously; concurrent requests end at exactly capacity − Σ stated costs, and a cost
 * above what is left goes into debt on Redis, so the next request is refused.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = CostHeaderOnRedisHttpIT.App.class,
    properties = {
        "ratelimit.store=redis",
        "ratelimit.store-failure=closed",
        "ratelimit.redis.timeout=10s",
        // a refill of one unit an hour: what the settlements leave is exact to within it
        "ratelimit.limits.tokens=token-bucket rate=1 period=1h capacity=100000",
        "ratelimit.filter.rules[0].path=/metered/**",
        "ratelimit.filter.rules[0].limit=tokens",
        "ratelimit.filter.rules[0].key=header:X-Client",
        "ratelimit.filter.rules[0].cost=100",
        "ratelimit.filter.rules[0].cost-header=X-Tokens"})
class CostHeaderOnRedisHttpIT {
  private static final RedisServer REDIS = RedisServer.start();
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @LocalServerPort
  int port;

  @Autowired
  RateLimiter limiter;

  @DynamicPropertySource
  static void redis(DynamicPropertyRegistry registry) {
    registry.add("ratelimit.redis.url", REDIS::uri);
  }

  @AfterAll
  static void stopRedis() {
    REDIS.close();
  }

  @AppWithoutSecurity
  static class App {
    /** The application states what each request cost; the filter settles with it and takes it out. */
    @RestController
    static class Endpoints {
      @GetMapping("/metered/now")
      ResponseEntity<String> now(@RequestParam String tokens) {
        return ResponseEntity.ok().header("X-Tokens", tokens).body("metered");
      }

      @GetMapping("/metered/later")
      CompletableFuture<ResponseEntity<String>> later(@RequestParam String tokens) {
        return CompletableFuture.supplyAsync(() -> ResponseEntity.ok().header("X-Tokens", tokens).body("metered"));
      }
    }
  }

  private CompletableFuture<HttpResponse<String>> send(String path, String client) {
    return this.client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("X-Client", client).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private double remaining(String client) {
    return limiter.named("tokens").check(client, 0).remaining();
  }

  @Test
  void concurrentRequests_syncAndAsync_endAtExactlyCapacityMinusTheStatedCosts() throws Exception {
    Random random = new Random();
    long stated = 0;
    List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      int tokens = random.nextInt(300);
      stated += tokens;
      responses.add(send((i % 2 == 0 ? "/metered/now" : "/metered/later") + "?tokens=" + tokens, "many"));
    }
    for (CompletableFuture<HttpResponse<String>> response : responses) {
      assertThat(response.get().statusCode()).as(response.get().body()).isEqualTo(200);
      assertThat(response.get().headers().firstValue("X-Tokens")).as("taken out").isEmpty();
    }
    double expected = 100_000 - stated;
    // an asynchronous request is settled when its response completes, which the client may see first
    Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(remaining("many")).isBetween(expected, expected + 0.1));
  }

  @Test
  void aStatedCostAboveWhatIsLeft_goesIntoDebt_andTheNextRequestIsRefused() throws Exception {
    assertThat(send("/metered/now?tokens=99900", "heavy").get().statusCode()).isEqualTo(200);
    assertThat(send("/metered/later?tokens=500", "heavy").get().statusCode()).isEqualTo(200);
    Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(remaining("heavy")).as("owed: the answer that ran long is paid for").isLessThan(0));
    HttpResponse<String> next = send("/metered/now?tokens=1", "heavy").get();
    assertThat(next.statusCode()).isEqualTo(429);
    assertThat(next.headers().firstValue("Retry-After")).isPresent();
  }
}

package dev.ratelimit.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.redis.RedisServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The gateway's {@code RateLimit} route filter with a {@code cost-header}, deciding on a real
 * redis-server: each request is charged the route's estimate up front and settled with the cost
 * the backend states in its response; concurrent clients end at exactly capacity − Σ stated
 * costs, and a backend that states more than is left puts the key into debt on Redis, so the next
 * request is refused before it reaches the backend.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = GatewayOnRedisIT.App.class,
    properties = {
        "ratelimit.store=redis",
        "ratelimit.store-failure=closed",
        "ratelimit.redis.timeout=10s",
        // a refill of one unit an hour: what the settlements leave is exact to within it
        "ratelimit.limits.tokens=token-bucket rate=1 period=1h capacity=100000",
        "spring.cloud.gateway.server.webflux.routes[0].id=metered",
        "spring.cloud.gateway.server.webflux.routes[0].uri=${backend.uri}",
        "spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/metered/**",
        "spring.cloud.gateway.server.webflux.routes[0].filters[0].name=RateLimit",
        "spring.cloud.gateway.server.webflux.routes[0].filters[0].args.limit=tokens",
        "spring.cloud.gateway.server.webflux.routes[0].filters[0].args.key=header:X-Client",
        "spring.cloud.gateway.server.webflux.routes[0].filters[0].args.cost=100",
        "spring.cloud.gateway.server.webflux.routes[0].filters[0].args.cost-header=X-Tokens"})
class GatewayOnRedisIT {
  private static final RedisServer REDIS = RedisServer.start();
  private static final HttpServer BACKEND = backend();

  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();

  @LocalServerPort
  int port;

  @Autowired
  RateLimiter limiter;

  /** The upstream: {@code /metered/V} answers 200 stating the cost {@code V} in {@code X-Tokens}. */
  private static HttpServer backend() {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.setExecutor(Executors.newCachedThreadPool());
      server.createContext("/metered/", exchange -> {
        String path = exchange.getRequestURI().getPath();
        exchange.getResponseHeaders().add("X-Tokens", path.substring("/metered/".length()));
        byte[] body = "answered".getBytes(StandardCharsets.UTF_8);
        try (OutputStream out = exchange.getResponseBody()) {
          exchange.sendResponseHeaders(200, body.length);
          out.write(body);
        }
      });
      server.start();
      return server;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    registry.add("ratelimit.redis.url", REDIS::uri);
    registry.add("backend.uri", () -> "http://127.0.0.1:" + BACKEND.getAddress().getPort());
  }

  @AfterAll
  static void stop() {
    BACKEND.stop(0);
    REDIS.close();
  }

  @SpringBootApplication
  static class App {}

  private CompletableFuture<HttpResponse<String>> send(String path, String client) {
    return this.client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("X-Client", client).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private double remaining(String client) {
    return limiter.named("tokens").check(client, 0).remaining();
  }

  @Test
  void concurrentClients_endAtExactlyCapacityMinusTheStatedCosts_whichTheyNeverSee() throws Exception {
    Random random = new Random();
    long stated = 0;
    List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      int tokens = random.nextInt(300);
      stated += tokens;
      responses.add(send("/metered/" + tokens, "many"));
    }
    for (CompletableFuture<HttpResponse<String>> response : responses) {
      assertThat(response.get().statusCode()).as(response.get().body()).isEqualTo(200);
      assertThat(response.get().headers().firstValue("X-Tokens")).as("taken out").isEmpty();
    }
    double expected = 100_000 - stated;
    // settlements are not waited for by the response: wait for Redis to have them
    Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(remaining("many")).isBetween(expected, expected + 0.1));
  }

  @Test
  void aStatedCostAboveWhatIsLeft_goesIntoDebt_andTheNextRequestIsRefused() throws Exception {
    assertThat(send("/metered/99900", "heavy").get().statusCode()).isEqualTo(200);
    assertThat(send("/metered/500", "heavy").get().statusCode()).isEqualTo(200);
    Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(remaining("heavy")).as("owed: the answer that ran long is paid for").isLessThan(0));
    HttpResponse<String> next = send("/metered/1", "heavy").get();
    assertThat(next.statusCode()).isEqualTo(429);
    assertThat(next.headers().firstValue("Retry-After")).isPresent();
  }
}

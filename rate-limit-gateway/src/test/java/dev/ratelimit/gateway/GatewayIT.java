package dev.ratelimit.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.ratelimit.ManualClock;
import dev.ratelimit.http.contract.ClientSees;
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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import reactor.core.publisher.Mono;

/**
 * A real Spring Cloud Gateway on Reactor Netty, on a random port, routing to a backend on
 * loopback that the test starts: the {@code RateLimit} route filter with the shared
 * expectations, and the stock {@code RequestRateLimiter} on {@code rateLimitGatewayLimiter}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = GatewayIT.App.class,
    properties = {
        "ratelimit.limits.api=token-bucket rate=3 period=1h",
        "ratelimit.limits.stock=token-bucket rate=2 period=1h",
        "ratelimit.gateway.routes.stock=stock",
        "spring.cloud.gateway.server.webflux.routes[0].id=limited",
        "spring.cloud.gateway.server.webflux.routes[0].uri=${backend.uri}",
        "spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/limited/**",
        "spring.cloud.gateway.server.webflux.routes[0].filters[0].name=RateLimit",
        "spring.cloud.gateway.server.webflux.routes[0].filters[0].args.limit=api",
        "spring.cloud.gateway.server.webflux.routes[0].filters[0].args.key=header:X-Client",
        "spring.cloud.gateway.server.webflux.routes[1].id=stock",
        "spring.cloud.gateway.server.webflux.routes[1].uri=${backend.uri}",
        "spring.cloud.gateway.server.webflux.routes[1].predicates[0]=Path=/stock/**",
        "spring.cloud.gateway.server.webflux.routes[1].filters[0].name=RequestRateLimiter",
        "spring.cloud.gateway.server.webflux.routes[1].filters[0].args.rate-limiter=#{@rateLimitGatewayLimiter}",
        "spring.cloud.gateway.server.webflux.routes[1].filters[0].args.key-resolver=#{@clientKey}"})
class GatewayIT {
  private static final AtomicInteger BACKEND_CALLS = new AtomicInteger();
  private static final HttpServer BACKEND = backend();

  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();

  @LocalServerPort
  int port;

  /** The upstream the routes send to: it answers every path with its own name. */
  private static HttpServer backend() {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext("/", exchange -> {
        BACKEND_CALLS.incrementAndGet();
        byte[] body = ("backend " + exchange.getRequestURI().getPath()).getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
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
  static void backendUri(DynamicPropertyRegistry registry) {
    registry.add("backend.uri", () -> "http://127.0.0.1:" + BACKEND.getAddress().getPort());
  }

  @AfterAll
  static void stopBackend() {
    BACKEND.stop(0);
  }

  @SpringBootApplication
  static class App {
    /** Time stands still: the headers' seconds are exact. */
    @Bean
    ManualClock rateLimitClock() {
      return new ManualClock(1_700_000_000_000L);
    }

    @Bean
    KeyResolver clientKey() {
      return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Client"));
    }
  }

  private HttpResponse<String> get(String path, String client) throws IOException, InterruptedException {
    return this.client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("X-Client", client).timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static ClientSees seen(HttpResponse<String> response) {
    return new ClientSees(response.statusCode(), name -> response.headers().firstValue(name).orElse(null),
        response.body());
  }

  @Test
  void rateLimitRouteFilter_admitsCapacityToTheBackendThenAnswersTheProject429() throws Exception {
    int before = BACKEND_CALLS.get();
    for (int remaining = 2; remaining >= 0; remaining--) {
      HttpResponse<String> admitted = get("/limited/x", "kim");
      assertThat(admitted.body()).isEqualTo("backend /limited/x");
      seen(admitted).hasRateLimitHeaders("api", 3, 3600, remaining, (3 - remaining) * 1200);
    }
    seen(get("/limited/x", "kim")).hasRateLimitHeaders("api", 3, 3600, 0, 3600)
        .isRateLimited("api", 1200, "/limited/x");
    assertThat(BACKEND_CALLS.get() - before).as("the denied request never reached the backend").isEqualTo(3);
    assertThat(get("/limited/x", "lee").statusCode()).as("another key, another bucket").isEqualTo(200);
  }

  @Test
  void requestRateLimiter_onRateLimitGatewayLimiter_limitsByTheRoutesKeyResolver() throws Exception {
    int before = BACKEND_CALLS.get();
    for (int remaining = 1; remaining >= 0; remaining--) {
      HttpResponse<String> admitted = get("/stock/y", "max");
      assertThat(admitted.body()).isEqualTo("backend /stock/y");
      seen(admitted).hasRateLimitHeaders("stock", 2, 3600, remaining, (2 - remaining) * 1800);
    }
    HttpResponse<String> denied = get("/stock/y", "max");
    assertThat(denied.statusCode()).isEqualTo(429);
    seen(denied).hasRateLimitHeaders("stock", 2, 3600, 0, 3600);
    assertThat(denied.headers().firstValue("Retry-After")).as("exact, in whole seconds, unlike RedisRateLimiter")
        .contains("1800");
    assertThat(BACKEND_CALLS.get() - before).isEqualTo(2);
    assertThat(get("/stock/y", "ned").statusCode()).isEqualTo(200);
  }
}

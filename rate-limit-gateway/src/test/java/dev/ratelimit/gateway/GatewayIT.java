package dev.ratelimit.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.ratelimit.ManualClock;
import dev.ratelimit.http.contract.ClientSees;
import dev.ratelimit.limiter.RateLimiter;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLDecoder;
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
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * A real Spring Cloud Gateway on Reactor Netty, on a random port, routing to a backend on
 * loopback that the test starts: the {@code RateLimit} route filter with the shared
 * expectations, with {@code charge-on} and a client that hangs up while the backend works, and
 * the stock {@code RequestRateLimiter} on {@code rateLimitGatewayLimiter}.
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
        "spring.cloud.gateway.server.webflux.routes[1].filters[0].args.key-resolver=#{@clientKey}",
        "ratelimit.limits.logins=fixed-window rate=2 period=1h",
        "spring.cloud.gateway.server.webflux.routes[2].id=paid",
        "spring.cloud.gateway.server.webflux.routes[2].uri=${backend.uri}",
        "spring.cloud.gateway.server.webflux.routes[2].predicates[0]=Path=/paid/**",
        "spring.cloud.gateway.server.webflux.routes[2].filters[0].name=RateLimit",
        "spring.cloud.gateway.server.webflux.routes[2].filters[0].args.limit=logins",
        "spring.cloud.gateway.server.webflux.routes[2].filters[0].args.key=header:X-Client",
        "spring.cloud.gateway.server.webflux.routes[2].filters[0].args.charge-on=401",
        "spring.cloud.gateway.server.webflux.routes[3].id=refunded",
        "spring.cloud.gateway.server.webflux.routes[3].uri=${backend.uri}",
        "spring.cloud.gateway.server.webflux.routes[3].predicates[0]=Path=/refunded/**",
        "spring.cloud.gateway.server.webflux.routes[3].filters[0].name=RateLimit",
        "spring.cloud.gateway.server.webflux.routes[3].filters[0].args.limit=logins",
        "spring.cloud.gateway.server.webflux.routes[3].filters[0].args.key=header:X-Client",
        "spring.cloud.gateway.server.webflux.routes[3].filters[0].args.charge-on=401",
        "spring.cloud.gateway.server.webflux.routes[3].filters[0].args.refund-cancelled=true",
        "ratelimit.limits.tokens=token-bucket rate=100000 period=1h",
        "spring.cloud.gateway.server.webflux.routes[4].id=metered",
        "spring.cloud.gateway.server.webflux.routes[4].uri=${backend.uri}",
        "spring.cloud.gateway.server.webflux.routes[4].predicates[0]=Path=/metered/**",
        "spring.cloud.gateway.server.webflux.routes[4].filters[0].name=RateLimit",
        "spring.cloud.gateway.server.webflux.routes[4].filters[0].args.limit=tokens",
        "spring.cloud.gateway.server.webflux.routes[4].filters[0].args.key=header:X-Client",
        "spring.cloud.gateway.server.webflux.routes[4].filters[0].args.cost=100",
        "spring.cloud.gateway.server.webflux.routes[4].filters[0].args.cost-header=X-Tokens",
        "spring.cloud.gateway.server.webflux.routes[5].id=shown",
        "spring.cloud.gateway.server.webflux.routes[5].uri=${backend.uri}",
        "spring.cloud.gateway.server.webflux.routes[5].predicates[0]=Path=/shown/**",
        "spring.cloud.gateway.server.webflux.routes[5].filters[0].name=RateLimit",
        "spring.cloud.gateway.server.webflux.routes[5].filters[0].args.limit=tokens",
        "spring.cloud.gateway.server.webflux.routes[5].filters[0].args.key=header:X-Client",
        "spring.cloud.gateway.server.webflux.routes[5].filters[0].args.cost=100",
        "spring.cloud.gateway.server.webflux.routes[5].filters[0].args.cost-header=X-Tokens",
        "spring.cloud.gateway.server.webflux.routes[5].filters[0].args.cost-header-pass=true"})
class GatewayIT {
  private static final long GUARD_SECONDS = 30;
  private static final AtomicInteger BACKEND_CALLS = new AtomicInteger();
  /** A call to {@code /held} in the backend started; the test lets it answer with {@link #RELEASE}. */
  private static final Semaphore BACKEND_ENTERED = new Semaphore(0);
  private static final Semaphore RELEASE = new Semaphore(0);
  /** The gateway cancelled a route's chain, after the RateLimit filter heard the cancel ({@link CancelSignal}). */
  private static final Semaphore CANCELLED = new Semaphore(0);
  private static final HttpServer BACKEND = backend();

  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();

  @LocalServerPort
  int port;

  @Autowired
  RateLimiter limiter;

  /**
   * The upstream the routes send to: it answers every path with its own name; a path ending in
   * {@code /status/NNN} with that status; {@code .../held} is a slow login check, which answers 401
   * once the test releases it; {@code .../tokens/V} states the cost {@code V} in {@code X-Tokens}
   * ({@code V} URL-decoded; {@code a|b} two values, {@code none} no header).
   */
  private static HttpServer backend() {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.setExecutor(Executors.newCachedThreadPool()); // a held call must not hold the others
      server.createContext("/", exchange -> {
        BACKEND_CALLS.incrementAndGet();
        String path = exchange.getRequestURI().getPath();
        int status = 200;
        if (path.endsWith("/held")) {
          BACKEND_ENTERED.release();
          acquireUninterruptibly(RELEASE);
          status = 401;
        } else if (path.matches(".*/status/[0-9]{3}")) {
          status = Integer.parseInt(path.substring(path.length() - 3));
        }
        String raw = exchange.getRequestURI().getRawPath();
        int tokens = raw.indexOf("/tokens/");
        if (tokens >= 0) {
          // percent-decoded once (URLDecoder would read a '+' as a space)
          String value = URLDecoder.decode(raw.substring(tokens + "/tokens/".length()).replace("+", "%2B"),
              StandardCharsets.UTF_8);
          if (!value.equals("none")) {
            for (String stated : value.split("\\|")) {
              exchange.getResponseHeaders().add("X-Tokens", stated);
            }
          }
        }
        byte[] body = ("backend " + path).getBytes(StandardCharsets.UTF_8);
        try (OutputStream out = exchange.getResponseBody()) {
          exchange.sendResponseHeaders(status, body.length);
          out.write(body);
        } catch (IOException gatewayGone) {
          // the gateway closed the connection to the backend when its client went away
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

    @Bean
    CancelSignal cancelSignal() {
      return new CancelSignal();
    }
  }

  /**
   * Signals {@link #CANCELLED} when a route's chain is cancelled. Ordered after the route's
   * filters: a cancel reaches the RateLimit filter first, so the charge is settled by then.
   */
  static final class CancelSignal implements GlobalFilter, Ordered {
    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
      return chain.filter(exchange).doOnCancel(CANCELLED::release);
    }

    @Override
    public int getOrder() {
      return 100;
    }
  }

  private static void acquireUninterruptibly(Semaphore signal) {
    try {
      acquire(signal, "the test never released the backend");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void acquire(Semaphore signal, String what) throws InterruptedException {
    assertThat(signal.tryAcquire(GUARD_SECONDS, TimeUnit.SECONDS)).as(what).isTrue();
  }

  /**
   * A client sends a login through the gateway, the backend starts its slow check, the client
   * hangs up (a reset); returns once the gateway cancelled the route's chain, and lets the backend
   * answer into the closed connection.
   */
  private void hangUpWhileTheBackendWorks(String path, String client) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Client: " + client
          + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      acquire(BACKEND_ENTERED, "the backend was never called (was the request denied?)");
      socket.setSoLinger(true, 0);
    }
    acquire(CANCELLED, "the gateway never cancelled the route");
    RELEASE.release();
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

  @Test
  void rateLimitRouteFilter_chargeOn_keepsTheBackendsCountingStatusesOnly() throws Exception {
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> ok = get("/paid/status/200", "ok-1");
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(ok.headers().firstValue("X-RateLimit-Remaining")).as("charged up front").contains("1");
    }
    assertThat(get("/paid/status/401", "ok-1").statusCode()).isEqualTo(401);
    assertThat(get("/paid/status/401", "ok-1").statusCode()).isEqualTo(401);
    seen(get("/paid/status/200", "ok-1")).isRateLimited("logins", 2800, "/paid/status/200");
  }

  @Test
  void rateLimitRouteFilter_chargeOn_aClientThatHangsUpWhileTheBackendWorks_isCharged() throws Exception {
    hangUpWhileTheBackendWorks("/paid/login/held", "gone-1");
    hangUpWhileTheBackendWorks("/paid/login/held", "gone-1");
    int before = BACKEND_CALLS.get();
    seen(get("/paid/status/200", "gone-1")).isRateLimited("logins", 2800, "/paid/status/200");
    assertThat(BACKEND_CALLS.get() - before).isZero();
  }

  @Test
  void rateLimitRouteFilter_refundCancelled_refundsAClientThatHangsUp_evenWhileTheBackendWorks() throws Exception {
    for (int i = 0; i < 3; i++) {
      hangUpWhileTheBackendWorks("/refunded/login/held", "gone-2");
    }
    HttpResponse<String> next = get("/refunded/status/200", "gone-2");
    assertThat(next.statusCode()).isEqualTo(200);
    assertThat(next.headers().firstValue("X-RateLimit-Remaining")).as("only this request's own charge").contains("1");
  }

  private double tokensLeft(String client) {
    return limiter.named("tokens").check(client, 0).remaining();
  }

  @Test
  void rateLimitRouteFilter_costHeader_settlesWithTheBackendsStatedCost_whichTheClientNeverSees() throws Exception {
    HttpResponse<String> first = get("/metered/tokens/30", "tok-1");
    assertThat(first.body()).isEqualTo("backend /metered/tokens/30");
    assertThat(first.headers().firstValue("X-RateLimit-Remaining")).as("the estimate, up front").contains("99900");
    assertThat(first.headers().firstValue("X-Tokens")).isEmpty();
    assertThat(tokensLeft("tok-1")).isEqualTo(100_000 - 30);
    get("/metered/tokens/250.5", "tok-1");
    assertThat(tokensLeft("tok-1")).isEqualTo(100_000 - 280.5);
  }

  @Test
  void rateLimitRouteFilter_costHeaderPass_letsTheClientSeeIt() throws Exception {
    assertThat(get("/shown/tokens/12", "tok-2").headers().firstValue("X-Tokens")).contains("12");
    assertThat(tokensLeft("tok-2")).isEqualTo(100_000 - 12);
  }

  /** What a backend could send that is no cost: each keeps the estimate; the client gets the backend's answer. */
  @Test
  void rateLimitRouteFilter_costHeader_valuesThatAreNoCost_keepTheEstimate() throws Exception {
    List<String> values = List.of("none", "-1", "NaN", "1e309", "abc", "1%7C2", "%2B5", "9".repeat(1000));
    for (String value : values) {
      HttpResponse<String> response = get("/metered/tokens/" + value, "tok-3");
      assertThat(response.statusCode()).as(value).isEqualTo(200);
      assertThat(response.headers().firstValue("X-Tokens")).as(value).isEmpty();
    }
    assertThat(tokensLeft("tok-3")).isEqualTo(100_000 - 100.0 * values.size());
  }

  @Test
  void rateLimitRouteFilter_costHeader_concurrentClients_endAtExactlyCapacityMinusTheStatedCosts() throws Exception {
    Random random = new Random();
    long stated = 0;
    List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      int tokens = random.nextInt(300);
      stated += tokens;
      responses.add(client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
          + "/metered/tokens/" + tokens)).header("X-Client", "tok-4").timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofString()));
    }
    for (CompletableFuture<HttpResponse<String>> response : responses) {
      assertThat(response.get().statusCode()).isEqualTo(200);
    }
    assertThat(tokensLeft("tok-4")).isEqualTo(100_000 - stated);
  }
}

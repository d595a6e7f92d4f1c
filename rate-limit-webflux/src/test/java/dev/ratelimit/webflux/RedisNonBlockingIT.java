package dev.ratelimit.webflux;

import static dev.ratelimit.webflux.Http.seen;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.DecisionListener;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.redis.RedisServer;
import dev.ratelimit.spring.RateLimited;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ResponseEntity;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.stereotype.Service;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The Redis store under WebFlux with BlockHound installed before the application starts: a
 * blocking call on a Netty event loop is an error, so the filter's and the annotation's
 * decisions reaching a real redis-server prove they never block it, nor does handing each
 * decision from Lettuce's event loop to the limiter's listener thread (the application has a
 * {@link DecisionListener}, which never runs on Lettuce's threads). A canary endpoint that does
 * block shows BlockHound is watching.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = RedisNonBlockingIT.App.class,
    properties = {
        "ratelimit.store=redis",
        "ratelimit.store-failure=closed",
        // a shared 2-core machine under BlockHound's instrumentation answers slowly, but must answer
        "ratelimit.redis.timeout=10s",
        "ratelimit.limits.api=token-bucket rate=10 period=1h",
        "ratelimit.limits.wide=token-bucket rate=100 period=1h",
        "ratelimit.limits.send=token-bucket rate=2 period=1h",
        "ratelimit.filter.rules[0].path=/api/**",
        "ratelimit.filter.rules[0].limit=api",
        "ratelimit.filter.rules[0].key=header:X-Client",
        "ratelimit.filter.rules[1].path=/both/**",
        "ratelimit.filter.rules[1].limit=wide",
        "ratelimit.filter.rules[1].key=header:X-Client",
        "ratelimit.filter.rules[2].path=/both/**",
        "ratelimit.filter.rules[2].limit=api",
        "ratelimit.filter.rules[2].key=header:X-Client",
        // a refill of one unit an hour: what the settlements leave is exact to within it
        "ratelimit.limits.metered=token-bucket rate=1 period=1h capacity=100000",
        "ratelimit.filter.rules[3].path=/metered/**",
        "ratelimit.filter.rules[3].limit=metered",
        "ratelimit.filter.rules[3].key=header:X-Client",
        "ratelimit.filter.rules[3].cost=100",
        "ratelimit.filter.rules[3].cost-header=X-Tokens"})
class RedisNonBlockingIT {
  private static final RedisServer REDIS;

  static {
    // loading a class reads its jar: once per class, the JVM's doing, not a request's
    // and Netty 4.2's pooled allocator takes a lock of its own while it grows: Netty's doing
    BlockHound.install(builder -> builder
        .allowBlockingCallsInside(ClassLoader.class.getName(), "loadClass")
        .allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup", "tryExpandMagazines"));
    REDIS = RedisServer.start();
  }

  /** What the application's listener heard, per limit, and on which threads. */
  private static final Map<String, AtomicInteger> HEARD = new ConcurrentHashMap<>();
  private static final Set<String> LISTENED_ON = ConcurrentHashMap.newKeySet();

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

  @SpringBootApplication
  static class App {
    /** Spring Security is on the test class path: everything open here. */
    @Bean
    SecurityWebFilterChain security(ServerHttpSecurity http) {
      return http.authorizeExchange(exchanges -> exchanges.anyExchange().permitAll()).build();
    }

    /** The application's own listener: the limiter tells it of every decision, none by a policy here. */
    @Bean
    DecisionListener heard() {
      return (limit, decision, fallback) -> {
        HEARD.computeIfAbsent(limit + (fallback == null ? "" : " by " + fallback), l -> new AtomicInteger())
            .incrementAndGet();
        LISTENED_ON.add(Thread.currentThread().getName());
      };
    }

    @RestController
    static class Endpoints {
      private final Sender sender;

      Endpoints(Sender sender) {
        this.sender = sender;
      }

      @GetMapping({"/api/x", "/both/x"})
      Mono<String> hello() {
        return Mono.just("hello");
      }

      @GetMapping("/metered/x")
      Mono<ResponseEntity<String>> metered(@RequestParam String tokens) {
        return Mono.just(ResponseEntity.ok().header("X-Tokens", tokens).body("metered"));
      }

      @GetMapping("/send")
      Mono<String> send(@RequestHeader("X-User") String user) {
        return sender.send(user);
      }

      @GetMapping("/complete")
      Mono<String> complete(@RequestHeader("X-User") String user, @RequestParam long tokens) {
        return sender.complete(user, tokens).map(Answer::text);
      }

      @GetMapping("/stream")
      Flux<String> stream(@RequestHeader("X-User") String user, @RequestParam long tokens) {
        return sender.stream(user, tokens).map(Answer::text);
      }

      /** Blocks a non-blocking thread (Reactor's parallel scheduler) on purpose. */
      @GetMapping("/canary")
      Mono<String> canary() {
        return Mono.delay(Duration.ofMillis(1)).map(tick -> {
          try {
            Thread.sleep(1);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return "not detected";
        });
      }
    }

    @Service
    static class Sender {
      @RateLimited(name = "send", key = "#user")
      Mono<String> send(String user) {
        return Mono.just("sent for " + user);
      }

      /** A model's answer: charged 100 up front, settled with the tokens it used. */
      @RateLimited(name = "metered", key = "#user", count = "100", actual = "#result.tokens()")
      Mono<Answer> complete(String user, long tokens) {
        return Mono.fromCallable(() -> new Answer("answer ", tokens));
      }

      /** Streamed: the last chunk carries the tokens the whole answer used. */
      @RateLimited(name = "metered", key = "#user", count = "100", actual = "#result.tokens()")
      Flux<Answer> stream(String user, long tokens) {
        return Flux.just(new Answer("one ", 0), new Answer("two", tokens));
      }
    }
  }

  /** A model's answer and the tokens it used. */
  record Answer(String text, long tokens) {}

  /** A header's seconds, checked to lie within what the real time that passed allows. */
  private static long seconds(HttpResponse<String> response, String header, long least, long most) {
    assertThat(response.headers().firstValue(header)).as(header + " of " + response.statusCode() + " "
        + response.headers().map() + " " + response.body()).isPresent();
    long value = Long.parseLong(response.headers().firstValue(header).orElseThrow());
    assertThat(value).as(header).isBetween(least, most);
    return value;
  }

  @Test
  void blockHound_isWatchingTheEventLoop() throws Exception {
    HttpResponse<String> canary = new Http(port).get("/canary");
    assertThat(canary.statusCode()).as("a blocking call on a non-blocking thread fails the request").isEqualTo(500);
  }

  @Test
  void filter_decidesOnRedisWithoutBlocking_exactlyCapacityOfConcurrentRequests() throws Exception {
    int heardBefore = HEARD.computeIfAbsent("api", l -> new AtomicInteger()).get();
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      responses.add(client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/x"))
          .header("X-Client", "concurrent").timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofString()));
    }
    int admitted = 0;
    int denied = 0;
    for (CompletableFuture<HttpResponse<String>> response : responses) {
      int status = response.get().statusCode();
      admitted += status == 200 ? 1 : 0;
      denied += status == 429 ? 1 : 0;
    }
    assertThat(admitted).isEqualTo(10);
    assertThat(denied).isEqualTo(30);
    assertThat(REDIS.command("EXISTS", "ratelimit:{api:concurrent}")).isEqualTo(":1");
    assertThat(HEARD.get("api").get() - heardBefore).as("each decision heard once, by the time its answer is written")
        .isEqualTo(40);
    assertThat(HEARD).as("none decided by a failure policy")
        .allSatisfy((limit, count) -> assertThat(limit).doesNotContain(" by "));
    // heard on the limiter's listener thread, or on the caller's when Redis had answered before
    // its call returned; never on a thread of Lettuce's or the store's timer
    assertThat(LISTENED_ON).as("threads the listener ran on").contains("ratelimit-listener")
        .noneMatch(name -> name.startsWith("lettuce-") || name.startsWith("ratelimit-redis"));
  }

  @Test
  void filter_severalRulesOnRedis_allOrNothingWithTheSharedHeadersAndBody() throws Exception {
    Http http = new Http(port);
    for (int i = 0; i < 10; i++) {
      assertThat(http.get("/both/x", "X-Client", "pair").statusCode()).isEqualTo(200);
    }
    HttpResponse<String> denied = http.get("/both/x", "X-Client", "pair");
    seen(denied).isRateLimited("api", seconds(denied, "Retry-After", 350, 360), "/both/x");
    assertThat(denied.headers().firstValue("RateLimit-Policy")).contains("\"wide\";q=100;w=3600, \"api\";q=10;w=3600");
    assertThat(denied.headers().firstValue("RateLimit").orElseThrow())
        .matches("\"wide\";r=90;t=3[56][0-9], \"api\";r=0;t=3[56][0-9][0-9]");
  }

  /**
   * The settlement by a cost header, on the event loop, reaches Redis without blocking it: the
   * key ends at capacity − Σ stated costs (each request was charged 100 up front). Settlements
   * are not waited for by the response, so the test waits for Redis to have them.
   */
  @Test
  void costHeader_settlesOnRedisWithoutBlocking_exactlyCapacityMinusTheStatedCosts() throws Exception {
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    Random random = new Random();
    long stated = 0;
    List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      int tokens = random.nextInt(300);
      stated += tokens;
      responses.add(client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
          + "/metered/x?tokens=" + tokens)).header("X-Client", "metered").timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofString()));
    }
    for (CompletableFuture<HttpResponse<String>> response : responses) {
      assertThat(response.get().statusCode()).isEqualTo(200);
      assertThat(response.get().headers().firstValue("X-Tokens")).isEmpty();
    }
    double expected = 100_000 - stated;
    Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(limiter.named("metered").check("metered", 0).remaining()).isBetween(expected, expected + 0.1));
  }

  /**
   * {@code @RateLimited(actual)} on Mono and Flux methods, settled on Redis from the event loop
   * without blocking it; each response completes once its settlement is recorded, so the key's
   * state is read at once: exactly capacity − Σ actual costs.
   */
  @Test
  void rateLimitedActual_monoAndFlux_settleOnRedisWithoutBlocking_exactlyCapacityMinusTheActualCosts()
      throws Exception {
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    Random random = new Random();
    long actual = 0;
    List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      int tokens = random.nextInt(300);
      actual += tokens;
      responses.add(client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
          + (i % 2 == 0 ? "/complete" : "/stream") + "?tokens=" + tokens)).header("X-User", "model-user")
          .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString()));
    }
    for (CompletableFuture<HttpResponse<String>> response : responses) {
      assertThat(response.get().statusCode()).as(response.get().body()).isEqualTo(200);
    }
    double expected = 100_000 - actual;
    // a refill of one unit an hour: within 0.1 while the test runs
    assertThat(limiter.named("metered").check("model-user", 0).remaining()).isBetween(expected, expected + 0.1);
  }

  @Test
  void rateLimitedMonoMethod_onRedis_isDeniedWith429WithoutBlocking() throws Exception {
    Http http = new Http(port);
    assertThat(http.get("/send", "X-User", "ivy").body()).isEqualTo("sent for ivy");
    assertThat(http.get("/send", "X-User", "ivy").statusCode()).isEqualTo(200);
    HttpResponse<String> denied = http.get("/send", "X-User", "ivy");
    // Redis keeps real time: the bucket refilled a little while the requests ran
    long retryAfter = seconds(denied, "Retry-After", 1790, 1800);
    long reset = seconds(denied, "X-RateLimit-Reset", 3590, 3600);
    seen(denied).hasRateLimitHeaders("send", 2, 3600, 0, reset).isRateLimited("send", retryAfter, "/send");
  }
}

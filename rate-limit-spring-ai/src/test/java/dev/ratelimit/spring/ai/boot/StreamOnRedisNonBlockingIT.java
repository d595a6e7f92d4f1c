package dev.ratelimit.spring.ai.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.redis.RedisServer;
import dev.ratelimit.spring.ai.ScriptedChatModel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Streams through the advisor in a WebFlux application on the Redis store, a real redis-server,
 * with BlockHound installed before the application starts: the charge is made on a Netty event
 * loop when the stream is subscribed, so a blocking call there would fail the request. A canary
 * endpoint that blocks shows BlockHound is watching.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = StreamOnRedisNonBlockingIT.App.class,
    properties = {
        "spring.main.web-application-type=reactive",
        "ratelimit.store=redis",
        "ratelimit.store-failure=closed",
        // a shared 2-core machine under BlockHound's instrumentation answers slowly, but must answer
        "ratelimit.redis.timeout=10s",
        "ratelimit.limits.llm-tokens=token-bucket rate=1000 period=1h",
        "ratelimit.ai.limit=llm-tokens",
        "ratelimit.ai.key=#context['user']"})
class StreamOnRedisNonBlockingIT {
  private static final RedisServer REDIS;

  static {
    // loading a class reads its jar: once per class, the JVM's doing, not a request's
    // and Netty 4.2's pooled allocator takes a lock of its own while it grows: Netty's doing
    BlockHound.install(builder -> builder
        .allowBlockingCallsInside(ClassLoader.class.getName(), "loadClass")
        .allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup", "tryExpandMagazines"));
    REDIS = RedisServer.start();
  }

  private final HttpClient client = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @Autowired
  RateLimiter limiter;

  @Autowired
  ScriptedChatModel model;

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
    @Bean
    ScriptedChatModel chatModel() {
      return new ScriptedChatModel();
    }

    @Bean
    SecurityWebFilterChain security(ServerHttpSecurity http) {
      return http.csrf(csrf -> csrf.disable()).authorizeExchange(exchanges -> exchanges.anyExchange().permitAll())
          .build();
    }

    @RestController
    static class Chat {
      private final ChatClient chat;

      Chat(ChatClient.Builder builder) {
        this.chat = builder.build();
      }

      /** The user in the advisor context: the key expression reads it (no authentication here). */
      @PostMapping(path = "/stream/{user}", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
      Flux<String> stream(@org.springframework.web.bind.annotation.PathVariable String user,
          @RequestBody String prompt) {
        return chat.prompt().user(prompt).advisors(a -> a.param("user", user)).stream().content();
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
  }

  private HttpResponse<String> stream(String user) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/stream/" + user))
        .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString("hello world!")).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void blockHound_isWatchingTheEventLoop() throws Exception {
    HttpResponse<String> canary = client.send(HttpRequest.newBuilder(
        URI.create("http://localhost:" + port + "/canary")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(canary.statusCode()).isEqualTo(500);
  }

  @Test
  void streams_chargeAndSettleOnRedis_withoutBlockingAnEventLoop() throws Exception {
    model.reports(ScriptedChatModel.usage(400));

    HttpResponse<String> first = stream("ivy");
    assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
    assertThat(first.body()).isEqualTo("data:Hel\n\ndata:lo\n\ndata:!\n\n");
    // the settlement goes to Redis as the stream completes; the answer does not wait for it
    // (Redis's clock runs: a few tokens refill while the test runs, 100 would take six minutes)
    await().atMost(Duration.ofSeconds(30)).until(() -> limiter.named("llm-tokens").check("ivy", 0).remaining() < 700);
    assertThat(stream("ivy").statusCode()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(30)).until(() -> limiter.named("llm-tokens").check("ivy", 0).remaining() < 300);

    HttpResponse<String> third = stream("ivy"); // the estimate, 3, fits; the model uses 400: into debt
    assertThat(third.statusCode()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(30)).until(() -> limiter.named("llm-tokens").check("ivy", 0).remaining() < 0);
    HttpResponse<String> refused = stream("ivy");
    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
    assertThat(refused.headers().firstValue("Retry-After")).isPresent();
    assertThat(model.streams()).isEqualTo(3);
  }
}

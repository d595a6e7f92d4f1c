package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ratelimit.http.contract.ClientSees;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.stereotype.Service;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * A {@code @RateLimited} method returning a {@code CompletableFuture}, answered by Spring MVC
 * asynchronously on embedded Tomcat, whose decision the Redis store refuses to queue (more than
 * {@code ratelimit.redis.max-pending} waiting for a Redis that does not answer yet): load, not a
 * failure (docs/design.md §4.3.1). The client gets 503 with {@code Retry-After: 1} and the
 * problem body, never a 500; the method does not run; no policy decides.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = RateLimitedBusyStoreHttpIT.App.class,
    properties = {
        "ratelimit.store=redis",
        "ratelimit.store-failure=open",
        "ratelimit.redis.timeout=30s",
        "ratelimit.redis.max-pending=1",
        "ratelimit.limits.send=token-bucket rate=100 period=1h"})
class RateLimitedBusyStoreHttpIT {
  private static final RedisServer REDIS = RedisServer.start();
  private static final AtomicInteger SENT = new AtomicInteger();

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
    @RestController
    static class Endpoints {
      private final Sender sender;

      Endpoints(Sender sender) {
        this.sender = sender;
      }

      @GetMapping("/send")
      CompletableFuture<String> send(@RequestHeader("X-User") String user) {
        return sender.send(user);
      }
    }

    @Service
    static class Sender {
      @RateLimited(name = "send", key = "#user")
      public CompletableFuture<String> send(String user) {
        return CompletableFuture.completedFuture("sent " + SENT.incrementAndGet());
      }
    }
  }

  private static ClientSees seen(HttpResponse<String> response) {
    return new ClientSees(response.statusCode(), name -> response.headers().firstValue(name).orElse(null),
        response.body());
  }

  @Test
  void decisionsPastMaxPending_are503WithRetryAfter_theMethodDoesNotRun_andNoPolicyDecides() throws Exception {
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpRequest send = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/send"))
        .header("X-User", "ann").timeout(Duration.ofSeconds(60)).build();
    assertThat(client.send(send, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);

    REDIS.pause();
    List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
    try {
      for (int i = 0; i < 10; i++) {
        responses.add(client.sendAsync(send, HttpResponse.BodyHandlers.ofString()));
      }
      // one decision waits for Redis; every other is refused at once
      Awaitility.await().atMost(Duration.ofSeconds(30))
          .until(() -> responses.stream().filter(CompletableFuture::isDone).count() == 9);
    } finally {
      REDIS.resume();
    }
    List<HttpResponse<String>> answered = new ArrayList<>();
    for (CompletableFuture<HttpResponse<String>> response : responses) {
      answered.add(response.get());
    }
    List<HttpResponse<String>> refused = answered.stream().filter(r -> r.statusCode() != 200).toList();
    assertThat(refused).hasSize(9);
    for (HttpResponse<String> busy : refused) {
      seen(busy).isBusy("send", "/send");
    }
    assertThat(SENT.get()).as("the method ran for the two decisions Redis made").isEqualTo(2);
    assertThat(limiter.storeAvailable()).as("load is no failure").isTrue();
    assertThat(limiter.named("send").check("ann", 0).remaining()).as("nothing taken by the refused")
        .isCloseTo(98, within(0.1));
  }
}

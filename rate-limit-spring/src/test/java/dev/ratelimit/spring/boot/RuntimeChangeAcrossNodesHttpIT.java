package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ratelimit.redis.RedisServer;
import dev.ratelimit.spring.RateLimited;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * Two (then three) real Boot apps on random ports and one real Redis: a POST to one node's
 * {@code /actuator/ratelimits/{limit}} is in force on the other's requests within the sync
 * interval, and on a node started afterwards from its first request (docs/design.md §4.3.2).
 */
class RuntimeChangeAcrossNodesHttpIT {
  private static RedisServer redis;
  private final HttpClient client = HttpClient.newHttpClient();
  private final List<ConfigurableApplicationContext> nodes = new ArrayList<>();

  @SpringBootConfiguration
  @EnableAutoConfiguration(excludeName = {"org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
      "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
      "org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
      "org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration",
      "org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration"})
  @Import({App.Endpoint.class, App.Work.class})
  static class App {
    @RestController
    static class Endpoint {
      private final Work work;

      Endpoint(Work work) {
        this.work = work;
      }

      @GetMapping("/changing")
      String changing(@RequestHeader("X-User") String user) {
        return work.changing(user);
      }
    }

    static class Work {
      @RateLimited(name = "changing", key = "#user")
      public String changing(String user) {
        return "changing";
      }
    }
  }

  @BeforeAll
  static void startRedis() {
    redis = RedisServer.start();
  }

  @AfterAll
  static void stopRedis() {
    if (redis != null) {
      redis.close();
    }
  }

  @AfterEach
  void stopNodes() {
    nodes.forEach(ConfigurableApplicationContext::close);
  }

  /** A node: its own app on a random port, its own client of the one Redis. */
  private int node() {
    ConfigurableApplicationContext node = new SpringApplicationBuilder(App.class).properties(
        "server.port=0",
        "ratelimit.store=redis",
        "ratelimit.redis.url=" + redis.uri(),
        "ratelimit.redis.timeout=2s",
        "ratelimit.redis.sync-interval=100ms",
        "ratelimit.store-failure=closed",
        "ratelimit.limits.changing=fixed-window rate=1 period=1h",
        "management.endpoints.web.exposure.include=ratelimits",
        "management.endpoint.ratelimits.access=unrestricted").run();
    nodes.add(node);
    return Integer.parseInt(node.getEnvironment().getProperty("local.server.port"));
  }

  @Test
  void aChangePostedToOneNode_decidesTheOthersRequests_andANodeStartedLater() throws Exception {
    int a = node();
    int b = node();
    assertThat(get(b, "/changing", "dee")).isEqualTo(200);
    assertThat(get(b, "/changing", "dee")).isEqualTo(429);

    HttpResponse<String> changed = post(a, "/actuator/ratelimits/changing", "{\"spec\": \"fixed-window rate=3 period=1h\"}");
    assertThat(changed.statusCode()).isEqualTo(200);

    // the documented bound: max(interval 100 ms, 2 timeouts of 2 s) + 2 timeouts
    await().atMost(Duration.ofSeconds(8)).pollInterval(Duration.ofMillis(20))
        .until(() -> body(b, "/actuator/ratelimits").contains("fixed-window rate=3 period=1h"));
    assertThat(get(b, "/changing", "dee")).as("1 used of 3, carried over").isEqualTo(200);
    assertThat(get(b, "/changing", "dee")).isEqualTo(200);
    assertThat(get(b, "/changing", "dee")).isEqualTo(429);
    assertThat(get(a, "/changing", "dee")).as("the same key on the other node").isEqualTo(429);

    int later = node();
    assertThat(body(later, "/actuator/ratelimits")).as("from its start").contains("fixed-window rate=3 period=1h");
    assertThat(get(later, "/changing", "eve")).isEqualTo(200);
    assertThat(get(later, "/changing", "eve")).isEqualTo(200);
    assertThat(get(later, "/changing", "eve")).isEqualTo(200);
    assertThat(get(later, "/changing", "eve")).isEqualTo(429);
  }

  @Test
  void aSyncIntervalBelowOneMillisecond_stopsStartupNamingIt() {
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
        .withPropertyValues("ratelimit.store=redis", "ratelimit.redis.url=" + redis.uri(),
            "ratelimit.redis.sync-interval=0ms", "ratelimit.limits.api=10/1m")
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(new RateLimitFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
              .contains("syncInterval must be at least 1 ms but was PT0S");
        });
  }

  private int get(int port, String path, String user) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).header("X-User", user)
        .build(), HttpResponse.BodyHandlers.ofString()).statusCode();
  }

  private String body(int port, String path) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  private HttpResponse<String> post(int port, String path, String json) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}

package dev.ratelimit.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.redis.RedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/** Two instances of the demo with the redis profile share their limits through one redis-server. */
class TwoInstancesOnRedisIT {
  private final HttpClient client = HttpClient.newHttpClient();

  /**
   * An instance of the demo on the redis profile. Its message limit keeps capacity 3 but refills
   * one unit per 20 minutes, not per 6 s: a slow machine's seconds between the instances' first
   * requests must not refill what the test spends.
   */
  private static ConfigurableApplicationContext start(RedisServer redis) {
    return SpringApplication.run(ExampleApplication.class, "--spring.profiles.active=redis", "--server.port=0",
        "--ratelimit.redis.url=" + redis.uri(), "--ratelimit.store-failure=closed",
        "--ratelimit.limits.send-message=token-bucket rate=3 period=1h");
  }

  private int send(ConfigurableApplicationContext app) throws Exception {
    int port = ((WebServerApplicationContext) app).getWebServer().getPort();
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/messages?text=hi"))
        .header("Authorization", ExampleApplicationTest.basic("ann")).POST(HttpRequest.BodyPublishers.noBody()).build();
    return client.send(request, HttpResponse.BodyHandlers.ofString()).statusCode();
  }

  @Test
  void twoInstances_shareTheUsersMessageLimit() throws Exception {
    try (RedisServer redis = RedisServer.start();
        ConfigurableApplicationContext first = start(redis);
        ConfigurableApplicationContext second = start(redis)) {
      assertThat(send(first)).isEqualTo(200);
      assertThat(send(second)).isEqualTo(200);
      assertThat(send(first)).isEqualTo(200);
      assertThat(send(second)).as("capacity 3, spent across both instances").isEqualTo(429);
      assertThat(send(first)).isEqualTo(429);
    }
  }
}

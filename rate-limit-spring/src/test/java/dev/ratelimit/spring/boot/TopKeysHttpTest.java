package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * {@code /actuator/ratelimits/{limit}/top} in a real Boot app (Actuator, Security, the filter
 * from properties, top keys on by default): after a flood by one client among many distinct
 * ones, what an operator reads.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = TopKeysHttpTest.App.class,
    properties = {
        "ratelimit.limits.api=token-bucket rate=20 period=1h",
        "ratelimit.limits.quiet=token-bucket rate=100 period=1h",
        "ratelimit.filter.rules[0].path=/api/**",
        "ratelimit.filter.rules[0].limit=api",
        // the test's clients are told apart by a header; a real one can set it, so this is no production rule
        "ratelimit.filter.rules[0].key=header:X-Client",
        "ratelimit.top-keys.size=16", // small, so that the noise pushes keys out of the sketches
        "management.endpoints.web.exposure.include=ratelimits"})
class TopKeysHttpTest {
  private static final int NOISE = 500;
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final ObjectMapper json = new ObjectMapper();

  @LocalServerPort
  int port;

  @Autowired
  ManualClock clock;

  @SpringBootApplication
  static class App {
    @Bean
    ManualClock clock() {
      return new ManualClock(1_767_225_600_000L);
    }

    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
      return http.authorizeHttpRequests(requests -> requests
              .requestMatchers("/actuator/**").hasRole("ADMIN")
              .anyRequest().permitAll())
          .httpBasic(Customizer.withDefaults())
          .build();
    }

    @Bean
    InMemoryUserDetailsManager users() {
      return new InMemoryUserDetailsManager(
          User.withUsername("admin").password("{noop}admin-pw").roles("ADMIN").build(),
          User.withUsername("ann").password("{noop}ann-pw").roles("USER").build());
    }

    @RestController
    static class Api {
      @GetMapping("/api/data")
      String data() {
        return "data";
      }
    }
  }

  private HttpResponse<String> get(String path, String client, String user) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path));
    if (client != null) {
      request.header("X-Client", client);
    }
    if (user != null) {
      request.header("Authorization", "Basic " + Base64.getEncoder()
          .encodeToString((user + ":" + user + "-pw").getBytes(StandardCharsets.UTF_8)));
    }
    return this.client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void top_afterAFloodAmongManyClients_listsTheFloodingClientFirst_withinTheBound() throws Exception {
    int admitted = 0;
    int denied = 0;
    for (int i = 0; i < NOISE; i++) {
      assertThat(get("/api/data", "client-" + i, null).statusCode()).isEqualTo(200);
      if (i % 5 == 0) {
        int status = get("/api/data", "scraper", null).statusCode();
        if (status == 200) {
          admitted++;
        } else {
          assertThat(status).isEqualTo(429);
          denied++;
        }
      }
    }
    assertThat(admitted).isEqualTo(20);
    assertThat(denied).isEqualTo(NOISE / 5 - 20);

    HttpResponse<String> top = get("/actuator/ratelimits/api/top", null, "admin");
    assertThat(top.statusCode()).isEqualTo(200);
    JsonNode body = json.readTree(top.body());
    assertThat(body.get("limit").asString()).isEqualTo("api");
    JsonNode keys = body.get("keys");
    assertThat(keys).hasSize(RateLimitsEndpoint.TOP_LISTED);
    JsonNode first = keys.get(0);
    assertThat(first.get("key").asString()).isEqualTo("scraper");
    double units = first.get("units").asDouble();
    double refused = first.get("denied").asDouble();
    double uncounted = first.get("uncounted").asDouble();
    double bound = (NOISE + NOISE / 5) / 16.0; // W / size: the sketches' guarantee
    assertThat(units).isLessThanOrEqualTo(admitted).isGreaterThanOrEqualTo(admitted - uncounted);
    assertThat(refused).isLessThanOrEqualTo(denied).isGreaterThanOrEqualTo(denied - uncounted);
    assertThat(uncounted).isLessThanOrEqualTo(bound);
    for (JsonNode key : keys) {
      assertThat(key.get("key").asString()).matches("scraper|client-\\d+");
      assertThat(key.get("uncounted").asDouble()).isLessThanOrEqualTo(bound);
    }
  }

  @Test
  void top_isForOperatorsOnly() throws Exception {
    assertThat(get("/actuator/ratelimits/api/top", null, null).statusCode()).isEqualTo(401);
    assertThat(get("/actuator/ratelimits/api/top", null, "ann").statusCode()).isEqualTo(403);
  }

  @Test
  void top_ofAnUnknownLimit_is404() throws Exception {
    assertThat(get("/actuator/ratelimits/nope/top", null, "admin").statusCode()).isEqualTo(404);
    assertThat(get("/actuator/ratelimits/" + "x".repeat(5000) + "/top", null, "admin").statusCode())
        .isIn(404, 400);
  }

  @Test
  void top_coversTheLastOneToTwoWindows() throws Exception {
    clock.advance(Duration.ofHours(1)); // past whatever the other tests counted
    assertThat(get("/api/data", "late-client", null).statusCode()).isEqualTo(200);
    assertThat(get("/actuator/ratelimits/api/top", null, "admin").body())
        .isEqualTo("{\"limit\":\"api\",\"keys\":[{\"key\":\"late-client\",\"units\":1.0,\"denied\":0.0,\"uncounted\":0.0}]}");
    clock.advance(Duration.ofMinutes(1));
    assertThat(get("/actuator/ratelimits/api/top", null, "admin").body()).contains("late-client");
    clock.advance(Duration.ofMinutes(1));
    assertThat(get("/actuator/ratelimits/api/top", null, "admin").body())
        .isEqualTo("{\"limit\":\"api\",\"keys\":[]}");
    assertThat(get("/actuator/ratelimits/quiet/top", null, "admin").body())
        .isEqualTo("{\"limit\":\"quiet\",\"keys\":[]}");
  }
}

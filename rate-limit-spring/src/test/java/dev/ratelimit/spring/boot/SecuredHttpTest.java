package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.spring.RateLimited;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A real Boot app with Spring Security (HTTP basic), Actuator and nothing declared for rate
 * limiting but properties: what clients and an operator see over HTTP.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = SecuredHttpTest.App.class,
    properties = {
        "ratelimit.limits.per-user=token-bucket rate=2 period=1m",
        "ratelimit.limits.ops=token-bucket rate=3 period=1m",
        "ratelimit.limits.send=token-bucket rate=1 period=1m",
        "ratelimit.limits.tokens=token-bucket rate=100 period=1m",
        "ratelimit.filter.rules[0].path=/api/**",
        "ratelimit.filter.rules[0].limit=per-user",
        "ratelimit.filter.rules[0].key=principal",
        "ratelimit.filter.rules[1].path=/ops/**",
        "ratelimit.filter.rules[1].limit=ops",
        "ratelimit.filter.rules[1].key=#{#principal}",
        "ratelimit.filter.rules[2].path=/public/**",
        "ratelimit.filter.rules[2].limit=ops",
        "ratelimit.filter.rules[2].key=principal",
        "ratelimit.filter.missing-key=deny",
        "management.endpoints.web.exposure.include=health,ratelimits",
        "management.endpoint.ratelimits.access=unrestricted",
        "management.endpoint.health.show-details=always"})
class SecuredHttpTest {
  private final HttpClient client = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @SpringBootApplication
  static class App {
    /** Exact states for the endpoint's answers: time stands still unless a test moves it. */
    @Bean
    ManualClock clock() {
      return new ManualClock(1_767_225_600_000L);
    }

    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
      return http.authorizeHttpRequests(requests -> requests
              .requestMatchers("/public/**", "/actuator/health/**").permitAll()
              .requestMatchers("/actuator/**").hasRole("ADMIN")
              .anyRequest().authenticated())
          .httpBasic(Customizer.withDefaults())
          .csrf(csrf -> csrf.disable()) // DELETE on the actuator without a token: a test, not a browser
          .build();
    }

    @Bean
    InMemoryUserDetailsManager users() {
      return new InMemoryUserDetailsManager(
          User.withUsername("ann").password("{noop}ann-pw").roles("USER").build(),
          User.withUsername("bob").password("{noop}bob-pw").roles("USER").build(),
          User.withUsername("carl").password("{noop}carl-pw").roles("USER").build(),
          User.withUsername("dora").password("{noop}dora-pw").roles("USER").build(),
          User.withUsername("ops/eve@example.org").password("{noop}ops/eve@example.org-pw").roles("USER").build(),
          User.withUsername("admin").password("{noop}admin-pw").roles("ADMIN").build());
    }

    @RestController
    static class Endpoints {
      private final Sender sender;

      Endpoints(Sender sender) {
        this.sender = sender;
      }

      @GetMapping({"/api/me", "/ops/me", "/public/me"})
      String me() {
        return "me";
      }

      @GetMapping("/send")
      String send() {
        return sender.send();
      }

      @GetMapping("/complete")
      String complete(@RequestParam double maxTokens) {
        return sender.complete(maxTokens);
      }
    }

    @Service
    static class Sender {
      @RateLimited(name = "send", key = "#principal")
      public String send() {
        return "sent";
      }

      @RateLimited(name = "tokens", key = "#principal", count = "#maxTokens")
      public String complete(double maxTokens) {
        return "completed";
      }
    }
  }

  private HttpResponse<String> send(String method, String path, String user) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
        .method(method, HttpRequest.BodyPublishers.noBody());
    if (user != null) {
      request.header("Authorization", "Basic " + Base64.getEncoder()
          .encodeToString((user + ":" + user + "-pw").getBytes(StandardCharsets.UTF_8)));
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(String path, String user) throws Exception {
    return send("GET", path, user);
  }

  @Test
  void principalRule_givesEachAuthenticatedUserTheirOwnBucket() throws Exception {
    assertThat(get("/api/me", "ann").statusCode()).isEqualTo(200);
    assertThat(get("/api/me", "ann").headers().firstValue("X-RateLimit-Remaining")).contains("0");
    assertThat(get("/api/me", "ann").statusCode()).isEqualTo(429);
    HttpResponse<String> bob = get("/api/me", "bob");
    assertThat(bob.statusCode()).isEqualTo(200);
    assertThat(bob.headers().firstValue("X-RateLimit-Remaining")).contains("1");
  }

  @Test
  void spelRuleKey_principalIsTheUsersName() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertThat(get("/ops/me", "dora").statusCode()).isEqualTo(200);
    }
    assertThat(get("/ops/me", "dora").statusCode()).isEqualTo(429);
    assertThat(get("/ops/me", "bob").statusCode()).isEqualTo(200);
  }

  @Test
  void annotationKeyedByPrincipal_givesEachUserTheirOwnBucket() throws Exception {
    assertThat(get("/send", "ann").body()).isEqualTo("sent");
    HttpResponse<String> denied = get("/send", "ann");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.body()).contains("\"limit\":\"send\"");
    assertThat(get("/send", "bob").body()).isEqualTo("sent");
  }

  @Test
  void anonymousRequest_onAPrincipalRule_isDeniedUnderMissingKeyDeny() throws Exception {
    HttpResponse<String> anonymous = get("/public/me", null);
    assertThat(anonymous.statusCode()).isEqualTo(400);
    assertThat(anonymous.body()).contains("\"key\":\"principal\"");
    assertThat(get("/public/me", "carl").statusCode()).isEqualTo(200);
  }

  @Test
  void countTheLimitCanNeverAdmit_is400ProblemNamingLimitCountAndBound() throws Exception {
    for (String count : new String[] {"101", "-1", "Infinity", "NaN", "1e308"}) {
      HttpResponse<String> bad = get("/complete?maxTokens=" + count, "carl");
      assertThat(bad.statusCode()).as(count).isEqualTo(400);
      assertThat(bad.headers().firstValue("Content-Type")).contains("application/problem+json");
      assertThat(bad.body()).as(count).contains("\"limit\":\"tokens\"").contains("\"count\":")
          .contains("\"maxCount\":100").contains("for rate limit 'tokens' must be a finite number from 0 to 100")
          .doesNotContain("Exception").doesNotContain("at dev.");
    }
    assertThat(get("/complete?maxTokens=101", "carl").body()).contains("\"detail\":\"Count 101 for rate limit");
    assertThat(get("/complete?maxTokens=100", "carl").body()).isEqualTo("completed");
  }

  @Test
  void health_isUpWithTheStoresName() throws Exception {
    HttpResponse<String> health = get("/actuator/health/rateLimit", null);
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).contains("\"status\":\"UP\"").contains("\"store\":\"InMemoryStore\"")
        .contains("\"storeAvailable\":true");
  }

  @Test
  void perKeyEndpoint_readsWithoutConsuming_andResets() throws Exception {
    get("/api/me", "carl");
    get("/api/me", "carl");
    assertThat(get("/api/me", "carl").statusCode()).isEqualTo(429);
    for (int i = 0; i < 2; i++) { // reading twice: reading consumes nothing
      HttpResponse<String> state = get("/actuator/ratelimits/per-user/carl", "admin");
      assertThat(state.statusCode()).isEqualTo(200);
      assertThat(state.body()).contains("\"remaining\":0.0").contains("\"limit\":2.0")
          .contains("\"retryAfterMs\":30000").contains("\"resetAfterMs\":60000");
    }
    assertThat(send("DELETE", "/actuator/ratelimits/per-user/carl", "admin").statusCode()).isEqualTo(204);
    assertThat(get("/actuator/ratelimits/per-user/carl", "admin").body()).contains("\"remaining\":2.0")
        .contains("\"retryAfterMs\":0");
    assertThat(get("/api/me", "carl").statusCode()).isEqualTo(200);
    assertThat(send("DELETE", "/actuator/ratelimits/no-such-limit/carl", "admin").statusCode()).isEqualTo(404);
    assertThat(get("/actuator/ratelimits/no-such-limit/carl", "admin").statusCode()).isEqualTo(404);
    assertThat(get("/actuator/ratelimits", "admin").body()).contains("\"per-user\"").contains("\"store\":\"InMemoryStore\"");
    assertThat(get("/actuator/ratelimits/per-user/carl", "carl").statusCode()).isEqualTo(403);
  }

  @Test
  void principalWithAtAndSlash_isReadAndResetByQuery_byAnOperatorOnly() throws Exception {
    String eve = "ops/eve@example.org";
    assertThat(get("/api/me", eve).statusCode()).isEqualTo(200);
    assertThat(get("/api/me", eve).statusCode()).isEqualTo(200);
    assertThat(get("/api/me", eve).statusCode()).isEqualTo(429);
    String byQuery = "/actuator/ratelimits/per-user?key=" + URLEncoder.encode(eve, StandardCharsets.UTF_8);
    assertThat(send("DELETE", byQuery, null).statusCode()).as("anonymous").isEqualTo(401);
    assertThat(send("DELETE", byQuery, "carl").statusCode()).as("a user, not an operator").isEqualTo(403);
    assertThat(send("DELETE", byQuery, eve).statusCode()).as("the user herself").isEqualTo(403);
    HttpResponse<String> state = get(byQuery, "admin");
    assertThat(state.statusCode()).isEqualTo(200);
    assertThat(state.body()).contains("\"remaining\":0.0");
    assertThat(send("DELETE", byQuery, "admin").statusCode()).isEqualTo(204);
    assertThat(get("/api/me", eve).statusCode()).as("her bucket was the one reset").isEqualTo(200);
  }
}

package dev.ratelimit.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.spring.RateLimited;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * A reactive Boot application with Spring Security and Actuator, as an operator and its clients
 * see it over HTTP: a principal-keyed rule, the {@code rateLimit} health component, the
 * {@code ratelimit.decisions} meters and {@code /actuator/ratelimits/{limit}/{key}}, from Boot's
 * own auto-configuration (the test declares no registry, no health or endpoint bean). The compat
 * modules run it on every Boot line.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = WebFluxOperatorIT.App.class,
    properties = {
        "ratelimit.limits.per-user=token-bucket rate=2 period=1h",
        "ratelimit.limits.metered=token-bucket rate=1 period=1h",
        "ratelimit.filter.rules[0].path=/api/**",
        "ratelimit.filter.rules[0].limit=per-user",
        "ratelimit.filter.rules[0].key=principal",
        "management.endpoints.web.exposure.include=health,metrics,ratelimits",
        "management.endpoint.ratelimits.access=unrestricted", // the operator's writes, behind Security's admin role
        "management.endpoint.health.show-details=always"})
class WebFluxOperatorIT {
  @LocalServerPort
  int port;

  @SpringBootApplication
  static class App {
    @Bean
    SecurityWebFilterChain security(ServerHttpSecurity http) {
      return http.csrf(csrf -> csrf.disable()) // DELETE on the actuator without a token: a test, not a browser
          .authorizeExchange(exchanges -> exchanges
              .pathMatchers("/actuator/health/**").permitAll()
              .pathMatchers("/actuator/**").hasRole("ADMIN")
              .anyExchange().authenticated())
          .httpBasic(Customizer.withDefaults()).build();
    }

    /** Time stands still: the endpoint's numbers are exact however slow the machine. */
    @Bean
    ManualClock rateLimitClock() {
      return new ManualClock(1_767_225_600_000L);
    }

    @Bean
    MapReactiveUserDetailsService users() {
      return new MapReactiveUserDetailsService(
          User.withUsername("ann").password("{noop}ann-pw").roles("USER").build(),
          User.withUsername("bob").password("{noop}bob-pw").roles("USER").build(),
          User.withUsername("cleo").password("{noop}cleo-pw").roles("USER").build(),
          User.withUsername("admin").password("{noop}admin-pw").roles("ADMIN").build());
    }

    @RestController
    static class Endpoints {
      private final Meter meter;

      Endpoints(Meter meter) {
        this.meter = meter;
      }

      @GetMapping("/api/me")
      Mono<String> me() {
        return Mono.just("me");
      }

      @GetMapping("/metered")
      Mono<String> metered(@RequestParam String user) {
        return meter.read(user);
      }
    }

    @Service
    static class Meter {
      @RateLimited(name = "metered", key = "#user")
      public Mono<String> read(String user) {
        return Mono.just("read for " + user);
      }
    }
  }

  private HttpResponse<String> send(String method, String path, String user) throws Exception {
    Http http = new Http(port);
    if (user == null) {
      return http.send(method, path);
    }
    String basic = "Basic " + Base64.getEncoder().encodeToString((user + ":" + user + "-pw").getBytes(StandardCharsets.UTF_8));
    return http.send(method, path, "Authorization", basic);
  }

  @Test
  void principalRule_givesEachAuthenticatedUserTheirOwnBucket() throws Exception {
    assertThat(send("GET", "/api/me", "ann").statusCode()).isEqualTo(200);
    assertThat(send("GET", "/api/me", "ann").headers().firstValue("X-RateLimit-Remaining")).contains("0");
    assertThat(send("GET", "/api/me", "ann").statusCode()).isEqualTo(429);
    HttpResponse<String> bob = send("GET", "/api/me", "bob");
    assertThat(bob.statusCode()).isEqualTo(200);
    assertThat(bob.headers().firstValue("X-RateLimit-Remaining")).contains("1");
    assertThat(send("GET", "/api/me", null).statusCode()).as("nobody: Security's 401").isEqualTo(401);
  }

  @Test
  void health_isUpWithTheStoresName() throws Exception {
    HttpResponse<String> health = send("GET", "/actuator/health/rateLimit", null);
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).contains("\"status\":\"UP\"").contains("\"store\":\"InMemoryStore\"")
        .contains("\"storeAvailable\":true");
  }

  @Test
  void meters_countEachDecisionOfTheAnnotatedMonoMethod() throws Exception {
    assertThat(send("GET", "/metered?user=kim", "bob").body()).isEqualTo("read for kim");
    assertThat(send("GET", "/metered?user=kim", "bob").statusCode()).isEqualTo(429);
    assertThat(send("GET", "/actuator/metrics/ratelimit.decisions?tag=limit:metered&tag=outcome:allowed", "admin")
        .body()).contains("\"statistic\":\"COUNT\",\"value\":1.0");
    assertThat(send("GET", "/actuator/metrics/ratelimit.decisions?tag=limit:metered&tag=outcome:denied", "admin")
        .body()).contains("\"statistic\":\"COUNT\",\"value\":1.0");
    assertThat(send("GET", "/actuator/metrics/ratelimit.store.available", "admin").body()).contains("\"value\":1.0");
  }

  @Test
  void perKeyEndpoint_readsWithoutConsuming_andResets_forOperatorsOnly() throws Exception {
    send("GET", "/api/me", "cleo");
    send("GET", "/api/me", "cleo");
    assertThat(send("GET", "/api/me", "cleo").statusCode()).isEqualTo(429);
    for (int i = 0; i < 2; i++) { // reading twice: reading consumes nothing
      HttpResponse<String> state = send("GET", "/actuator/ratelimits/per-user/cleo", "admin");
      assertThat(state.statusCode()).isEqualTo(200);
      assertThat(state.body()).contains("\"remaining\":0.0").contains("\"limit\":2.0");
    }
    assertThat(send("DELETE", "/actuator/ratelimits/per-user/cleo", "admin").statusCode()).isEqualTo(204);
    assertThat(send("GET", "/api/me", "cleo").statusCode()).isEqualTo(200);
    assertThat(send("DELETE", "/actuator/ratelimits/no-such-limit/cleo", "admin").statusCode()).isEqualTo(404);
    assertThat(send("GET", "/actuator/ratelimits/per-user/cleo", "cleo").statusCode()).as("not an operator")
        .isEqualTo(403);
  }
}

package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
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
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Plans and conditions from facts a client cannot forge, in a real Boot app with Spring Security
 * (HTTP basic) on a random port: the plan from a bean that maps the authenticated user
 * ({@code @plans.of(#principal)}) or from an authority ({@code #authorities}), a condition from an
 * authority or from the client address as the trusted proxies resolve it ({@code #clientAddress}).
 * Headers a client sends to claim a plan or to pass as internal admit nothing extra.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = RuleExpressionsFromTheUserHttpTest.App.class,
    properties = {
        "ratelimit.limits.search=fixed-window rate=2 period=1h",
        "ratelimit.plans.pro.search=fixed-window rate=4 period=1h",
        "ratelimit.limits.tiered=fixed-window rate=2 period=1h",
        "ratelimit.plans.pro.tiered=fixed-window rate=4 period=1h",
        "ratelimit.limits.reports=fixed-window rate=1 period=1h",
        "ratelimit.limits.open=fixed-window rate=1 period=1h",
        "ratelimit.filter.rules[0].path=/search", "ratelimit.filter.rules[0].limit=search",
        "ratelimit.filter.rules[0].key=principal",
        "ratelimit.filter.rules[0].plan=#{@plans.of(#principal)}",
        "ratelimit.filter.rules[1].path=/tiered", "ratelimit.filter.rules[1].limit=tiered",
        "ratelimit.filter.rules[1].key=principal",
        "ratelimit.filter.rules[1].plan=#{#authorities.contains('PLAN_PRO') ? 'pro' : null}",
        "ratelimit.filter.rules[2].path=/reports", "ratelimit.filter.rules[2].limit=reports",
        "ratelimit.filter.rules[2].key=principal",
        "ratelimit.filter.rules[2].condition=#{!#authorities.contains('ROLE_INTERNAL')}",
        "ratelimit.filter.rules[3].path=/open/**", "ratelimit.filter.rules[3].limit=open",
        "ratelimit.filter.rules[3].condition=#{!#clientAddress.in('10.0.0.0/8, fd00::/8')}",
        // the test client is the proxy: the X-Forwarded-For it writes names the client
        "ratelimit.trusted-proxies=127.0.0.1"})
class RuleExpressionsFromTheUserHttpTest {
  private final HttpClient client = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  /** The application's own map from a user to a plan: its accounts. */
  public static class Plans {
    public String of(String user) {
      return "ann".equals(user) ? "pro" : null;
    }
  }

  @SpringBootApplication
  static class App {
    @Bean
    ManualClock clock() {
      return new ManualClock(1_767_225_600_000L);
    }

    @Bean
    Plans plans() {
      return new Plans();
    }

    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
      return http.authorizeHttpRequests(requests -> requests
              .requestMatchers("/open/**").permitAll()
              .anyRequest().authenticated())
          .httpBasic(Customizer.withDefaults())
          .build();
    }

    @Bean
    InMemoryUserDetailsManager users() {
      return new InMemoryUserDetailsManager(
          User.withUsername("ann").password("{noop}pw").authorities("ROLE_USER", "PLAN_PRO").build(),
          User.withUsername("bob").password("{noop}pw").roles("USER").build(),
          User.withUsername("cat").password("{noop}pw").roles("USER").build(),
          User.withUsername("batch").password("{noop}pw").roles("INTERNAL").build());
    }

    @RestController
    static class Endpoints {
      @GetMapping({"/search", "/tiered", "/reports", "/open/data"})
      String data() {
        return "data";
      }
    }
  }

  @Test
  void planFromABeanMappingTheUser_aProUserGetsThePlan_aClaimedPlanHeaderGetsNothing() throws Exception {
    assertThat(admittedOf(10, "/search", "ann")).isEqualTo(4);
    assertThat(admittedOf(10, "/search", "bob", "X-Plan", "pro")).as("X-Plan: pro from a free user").isEqualTo(2);
  }

  @Test
  void planFromAnAuthority_aProUserGetsThePlan_aClaimedPlanHeaderGetsNothing() throws Exception {
    assertThat(admittedOf(10, "/tiered", "ann")).isEqualTo(4);
    assertThat(admittedOf(10, "/tiered", "bob", "X-Plan", "pro")).as("X-Plan: pro from a free user").isEqualTo(2);
  }

  @Test
  void conditionFromAnAuthority_anInternalUserIsNotLimited_aClaimedInternalHeaderIs() throws Exception {
    assertThat(admittedOf(10, "/reports", "batch")).isEqualTo(10);
    HttpResponse<String> internal = send("/reports", "batch");
    assertThat(internal.headers().firstValue("X-RateLimit-Limit")).as("a rule that does not apply shows nothing")
        .isEmpty();
    assertThat(admittedOf(10, "/reports", "cat", "X-Internal", "1")).as("X-Internal: 1 from a user").isEqualTo(1);
  }

  @Test
  void conditionFromTheClientAddress_theInternalNetworkIsNotLimited_aSpoofedHopIs() throws Exception {
    assertThat(admittedOf(10, "/open/data", null, "X-Forwarded-For", "10.1.2.3")).isEqualTo(10);
    assertThat(admittedOf(10, "/open/data", null, "X-Forwarded-For", "fd00::17")).isEqualTo(10);
    // the client wrote 10.9.9.9 itself; the trusted proxy appended the address it really came from
    assertThat(admittedOf(10, "/open/data", null, "X-Forwarded-For", "10.9.9.9, 203.0.113.9", "X-Internal", "1"))
        .isEqualTo(1);
    assertThat(admittedOf(10, "/open/data", null, "X-Forwarded-For", "203.0.113.10", "X-Internal", "1"))
        .isEqualTo(1);
  }

  /** How many of {@code requests} are admitted; the others are refused with 429. */
  private int admittedOf(int requests, String path, String user, String... headers) throws Exception {
    int admitted = 0;
    for (int i = 0; i < requests; i++) {
      int status = send(path, user, headers).statusCode();
      assertThat(status).isIn(200, 429);
      admitted += status == 200 ? 1 : 0;
    }
    return admitted;
  }

  private HttpResponse<String> send(String path, String user, String... headers) throws Exception {
    List<String> all = new ArrayList<>(List.of(headers));
    if (user != null) {
      all.add("Authorization");
      all.add("Basic " + Base64.getEncoder().encodeToString((user + ":pw").getBytes(StandardCharsets.UTF_8)));
    }
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).GET();
    for (int i = 0; i < all.size(); i += 2) {
      request.header(all.get(i), all.get(i + 1));
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}

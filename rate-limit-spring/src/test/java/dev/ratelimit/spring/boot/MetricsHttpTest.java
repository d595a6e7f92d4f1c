package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.SwitchableStore;
import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.store.InMemoryStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The meters in a real Boot app, as an operator reads them from {@code /actuator/metrics}:
 * Boot's own registry (the test declares none), Actuator and Security; decisions counted once
 * each, including those a failure policy made while the store was down, and a sharded request
 * once however many shards it touched.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = MetricsHttpTest.App.class,
    properties = {
        "ratelimit.limits.open-api=token-bucket rate=2 period=1m failure=open",
        // a plan of the same kind shares each key's state: the store under the meters must share too
        "ratelimit.limits.planned=token-bucket rate=2 period=1m",
        "ratelimit.plans.pro.planned=token-bucket rate=6 period=1m",
        "ratelimit.limits.local-api=token-bucket rate=2 period=1m failure=local",
        "ratelimit.limits.bulk=token-bucket rate=10 period=1m shards=2",
        "ratelimit.filter.rules[0].path=/open/**",
        "ratelimit.filter.rules[0].limit=open-api",
        "ratelimit.filter.rules[0].key=principal",
        "ratelimit.filter.rules[1].path=/local/**",
        "ratelimit.filter.rules[1].limit=local-api",
        "ratelimit.filter.rules[1].key=principal",
        "ratelimit.filter.rules[2].path=/planned/**",
        "ratelimit.filter.rules[2].limit=planned",
        "ratelimit.filter.rules[2].key=principal",
        "ratelimit.filter.rules[2].plan=#{#request.getHeader('X-Plan')}",
        "management.endpoints.web.exposure.include=metrics,ratelimits"})
class MetricsHttpTest {
  private final HttpClient client = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @Autowired
  SwitchableStore store;

  @Autowired
  ManualClock clock;

  @SpringBootApplication
  static class App {
    @Bean
    ManualClock clock() {
      return new ManualClock(1_767_225_600_000L);
    }

    /** The store is not under test, the meters are: one the test can switch off. */
    @Bean
    SwitchableStore rateLimitStore(ManualClock clock) {
      return new SwitchableStore(new InMemoryStore(clock));
    }

    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
      return http.authorizeHttpRequests(requests -> requests
              .requestMatchers("/actuator/**").hasRole("ADMIN")
              .anyRequest().authenticated())
          .httpBasic(Customizer.withDefaults())
          .build();
    }

    @Bean
    InMemoryUserDetailsManager users() {
      return new InMemoryUserDetailsManager(
          User.withUsername("ann").password("{noop}ann-pw").roles("USER").build(),
          User.withUsername("admin").password("{noop}admin-pw").roles("ADMIN").build());
    }

    @RestController
    static class Endpoints {
      private final Bulk bulk;

      Endpoints(Bulk bulk) {
        this.bulk = bulk;
      }

      @GetMapping({"/open/me", "/local/me", "/planned/me"})
      String me() {
        return "me";
      }

      @GetMapping("/bulk")
      String bulk(@RequestParam double n) {
        return bulk.send(n);
      }
    }

    @Service
    static class Bulk {
      @RateLimited(name = "bulk", key = "#principal", count = "#n")
      public String send(double n) {
        return "sent";
      }
    }
  }

  private HttpResponse<String> get(String path, String user, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
        .header("Authorization", "Basic " + Base64.getEncoder()
            .encodeToString((user + ":" + user + "-pw").getBytes(StandardCharsets.UTF_8)));
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** With the meters timing the store, a plan of the limit's kind still shares the key's state. */
  @Test
  void plans_onTheTimedStore_shareOneStatePerKey() throws Exception {
    HttpResponse<String> onDefault = get("/planned/me", "ann");
    assertThat(onDefault.headers().firstValue("X-RateLimit-Limit")).contains("2");
    HttpResponse<String> onPro = get("/planned/me", "ann", "X-Plan", "pro");
    assertThat(onPro.headers().firstValue("X-RateLimit-Limit")).contains("6");
    assertThat(onPro.headers().firstValue("X-RateLimit-Remaining")).as("the default plan's use carried over")
        .contains("4");
  }

  private int status(String path) throws Exception {
    return get(path, "ann").statusCode();
  }

  /** The COUNT (or VALUE) that {@code /actuator/metrics/<name>?tag=...} answers, as the operator sees it. */
  private double metric(String name, String... tags) throws Exception {
    StringBuilder path = new StringBuilder("/actuator/metrics/" + name);
    for (int i = 0; i < tags.length; i++) {
      path.append(i == 0 ? '?' : '&').append("tag=").append(tags[i]);
    }
    HttpResponse<String> response = get(path.toString(), "admin");
    assertThat(response.statusCode()).as(path.toString()).isEqualTo(200);
    Matcher value = Pattern.compile("\"value\":([0-9.E-]+)").matcher(response.body());
    assertThat(value.find()).as(response.body()).isTrue();
    return Double.parseDouble(value.group(1));
  }

  private double decisions(String limit, String outcome, String... more) throws Exception {
    String[] tags = new String[2 + more.length];
    tags[0] = "limit:" + limit;
    tags[1] = "outcome:" + outcome;
    System.arraycopy(more, 0, tags, 2, more.length);
    return metric("ratelimit.decisions", tags);
  }

  @Test
  void decisions_areCountedOnce_includingThoseTheOpenAndLocalPoliciesMakeWhileTheStoreIsDown() throws Exception {
    assertThat(get("/actuator/metrics", "admin").body()).contains("\"ratelimit.decisions\"")
        .contains("\"ratelimit.store.available\"").contains("\"ratelimit.store.latency\"");
    double timedBefore = metric("ratelimit.store.latency");
    assertThat(status("/open/me")).isEqualTo(200);
    assertThat(status("/open/me")).isEqualTo(200);
    assertThat(status("/open/me")).isEqualTo(429);
    assertThat(status("/local/me")).isEqualTo(200);
    assertThat(metric("ratelimit.store.available")).isEqualTo(1);
    double timedCalls = metric("ratelimit.store.latency");
    assertThat(timedCalls).as("each store call timed").isEqualTo(timedBefore + 4);

    store.switchOff();
    try {
      assertThat(status("/open/me")).as("open admits").isEqualTo(200);
      assertThat(status("/open/me")).isEqualTo(200);
      for (int i = 0; i < 2; i++) { // a fresh in-memory bucket of 2
        assertThat(status("/local/me")).as("local decides in memory").isEqualTo(200);
      }
      assertThat(status("/local/me")).isEqualTo(429);
      assertThat(metric("ratelimit.store.available")).isEqualTo(0);
      assertThat(metric("ratelimit.store.latency")).as("failed calls are not timed").isEqualTo(timedCalls);
    } finally {
      store.switchOn();
      clock.advance(Duration.ofSeconds(2)); // the next request probes the store again
    }

    assertThat(decisions("open-api", "allowed")).isEqualTo(4);
    assertThat(decisions("open-api", "allowed", "source:store")).isEqualTo(2);
    assertThat(decisions("open-api", "allowed", "source:fallback")).isEqualTo(2);
    assertThat(decisions("open-api", "denied")).isEqualTo(1);
    assertThat(decisions("open-api", "denied", "source:fallback")).isZero();
    assertThat(decisions("local-api", "allowed")).isEqualTo(3);
    assertThat(decisions("local-api", "allowed", "source:fallback")).isEqualTo(2);
    assertThat(decisions("local-api", "denied")).isEqualTo(1);
    assertThat(decisions("local-api", "denied", "source:fallback")).isEqualTo(1);
    assertThat(get("/actuator/ratelimits", "admin").body())
        .contains("\"open-api\":{\"spec\":\"token-bucket rate=2 period=1m failure=open\",\"allowed\":4,\"denied\":1,"
            + "\"fallback\":2,\"shadowDenied\":0}")
        .contains("\"allowed\":3,\"denied\":1,\"fallback\":3,\"shadowDenied\":0}");

    assertThat(status("/open/me")).as("the store decides again: the bucket it kept is empty").isEqualTo(429);
    assertThat(metric("ratelimit.store.available")).isEqualTo(1);
    assertThat(decisions("open-api", "denied", "source:store")).isEqualTo(2);
    assertThat(metric("ratelimit.store.latency")).isEqualTo(timedCalls + 1);
  }

  @Test
  void aShardedRequestSplitOverBothShards_countsOnce_andAnOperatorsPeekCountsNot() throws Exception {
    assertThat(get("/bulk?n=8", "ann").body()).as("5 from one shard, 3 from the other").isEqualTo("sent");
    assertThat(status("/bulk?n=8")).isEqualTo(429);
    for (int i = 0; i < 3; i++) {
      assertThat(get("/actuator/ratelimits/bulk/ann", "admin").statusCode()).isEqualTo(200);
    }
    assertThat(decisions("bulk", "allowed")).isEqualTo(1);
    assertThat(decisions("bulk", "denied")).isEqualTo(1);
  }
}

package dev.ratelimit.webflux;

import static dev.ratelimit.webflux.Http.seen;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.spring.RateLimited;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * A reactive Boot application on Reactor Netty, on a random port, with Boot's own
 * auto-configuration: what a client sees from {@code ratelimit.filter.rules} and from
 * {@code @RateLimited} on a {@code Mono} method, asserted with the servlet filter's expectations.
 * Limits refill over an hour, so nothing refills while a test runs; each test has its own keys.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = WebFluxAppIT.App.class,
    properties = {
        "ratelimit.limits.by-ip=token-bucket rate=4 period=1h",
        "ratelimit.limits.api=token-bucket rate=3 period=1h",
        "ratelimit.limits.login=token-bucket rate=2 period=1h",
        "ratelimit.limits.tenants=token-bucket rate=1 period=1h",
        "ratelimit.limits.send=token-bucket rate=2 period=1h",
        "ratelimit.trusted-proxies=127.0.0.1",
        "ratelimit.filter.rules[0].path=/ip/**",
        "ratelimit.filter.rules[0].limit=by-ip",
        "ratelimit.filter.rules[1].path=/api/**",
        "ratelimit.filter.rules[1].limit=api",
        "ratelimit.filter.rules[1].key=header:X-Api-Key",
        "ratelimit.filter.rules[2].path=/login",
        "ratelimit.filter.rules[2].limit=login",
        "ratelimit.filter.rules[2].key=param:user|lower|trim",
        "ratelimit.filter.rules[3].path=/tenant/**",
        "ratelimit.filter.rules[3].limit=tenants",
        "ratelimit.filter.rules[3].key=#{#request.headers.getFirst('X-Tenant') + ':' + #exchange.request.path.value()}",
        "ratelimit.filter.rules[4].path=/me",
        "ratelimit.filter.rules[4].limit=tenants",
        "ratelimit.filter.rules[4].key=principal"})
class WebFluxAppIT {
  @LocalServerPort
  int port;

  @Autowired
  ApplicationContext context;

  private Http http() {
    return new Http(port);
  }

  @SpringBootApplication
  static class App {
    /** Basic authentication on {@code /me}, for {@code principal} keys; everything else open. */
    @Bean
    SecurityWebFilterChain security(ServerHttpSecurity http) {
      return http.csrf(csrf -> csrf.disable())
          .authorizeExchange(exchanges -> exchanges.pathMatchers("/me").authenticated().anyExchange().permitAll())
          .httpBasic(Customizer.withDefaults()).build();
    }

    /** Time stands still: the headers' seconds are exact however slow the machine. */
    @Bean
    ManualClock rateLimitClock() {
      return new ManualClock(1_700_000_000_000L);
    }

    @Bean
    MapReactiveUserDetailsService users() {
      return new MapReactiveUserDetailsService(User.withUsername("gina").password("{noop}pw").roles("USER").build(),
          User.withUsername("hank").password("{noop}pw").roles("USER").build());
    }

    @RestController
    static class Endpoints {
      private final Sender sender;

      Endpoints(Sender sender) {
        this.sender = sender;
      }

      @GetMapping({"/ip/x", "/api/a", "/tenant/a", "/tenant/b", "/free", "/me"})
      Mono<String> hello(ServerWebExchange exchange) {
        return Mono.just("hello " + exchange.getRequest().getPath().value());
      }

      /** The form stays readable to the handler after the filter read its key from it. */
      @PostMapping("/login")
      Mono<String> login(ServerWebExchange exchange) {
        return exchange.getFormData().map(form -> "hello /login " + form.getFirst("user"));
      }

      @GetMapping("/send")
      Mono<String> send(@RequestHeader("X-User") String user) {
        return sender.send(user);
      }

      @GetMapping("/send-many")
      Mono<String> sendMany(@RequestHeader("X-User") String user, @RequestParam double copies) {
        return sender.sendMany(user, copies);
      }
    }

    @Service
    static class Sender {
      @RateLimited(name = "send", key = "#user")
      Mono<String> send(String user) {
        return Mono.just("sent for " + user);
      }

      /** The count comes from the request: a client may send anything. */
      @RateLimited(name = "send", key = "#user", count = "#copies")
      Mono<String> sendMany(String user, double copies) {
        return Mono.just(copies + " sent for " + user);
      }
    }
  }

  @Test
  void filter_admitsExactlyCapacityThenAnswers429AsTheServletFilterDoes() throws Exception {
    // the client, behind the trusted loopback proxy, is the address it appended
    for (int remaining = 3; remaining >= 0; remaining--) {
      HttpResponse<String> admitted = http().get("/ip/x", "X-Forwarded-For", "198.51.100.1");
      assertThat(admitted.statusCode()).isEqualTo(200);
      assertThat(admitted.body()).isEqualTo("hello /ip/x");
      seen(admitted).hasRateLimitHeaders("by-ip", 4, 3600, remaining, (4 - remaining) * 900);
    }
    seen(http().get("/ip/x", "X-Forwarded-For", "198.51.100.1"))
        .hasRateLimitHeaders("by-ip", 4, 3600, 0, 3600).isRateLimited("by-ip", 900, "/ip/x");
  }

  @Test
  void filter_keysAreIsolatedAndRequestsMatchingNoRuleHaveNoHeaders() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertThat(http().get("/api/a", "X-Api-Key", "alice").statusCode()).isEqualTo(200);
    }
    seen(http().get("/api/a", "X-Api-Key", "alice")).isRateLimited("api", 1200, "/api/a");
    seen(http().get("/api/a", "X-Api-Key", "bob")).hasRateLimitHeaders("api", 3, 3600, 2, 1200);
    HttpResponse<String> free = http().get("/free");
    assertThat(free.statusCode()).isEqualTo(200);
    seen(free).hasNoRateLimitHeaders();
  }

  @Test
  void filter_spoofedForwardedForNeverChoosesTheKey() throws Exception {
    // 300 requests, each with its own made-up left part: all are the one client 203.0.113.50
    Random random = new Random(7);
    int admitted = 0;
    for (int i = 0; i < 300; i++) {
      String spoofed = random.nextInt(256) + "." + random.nextInt(256) + ".0." + random.nextInt(256);
      int status = http().get("/ip/x", "X-Forwarded-For", spoofed + ", 203.0.113.50").statusCode();
      admitted += status == 200 ? 1 : 0;
      assertThat(status).isIn(200, 429);
    }
    assertThat(admitted).as("one bucket of 4 for the client, whatever it wrote").isEqualTo(4);
    // another header than the chosen one is never read
    assertThat(http().get("/ip/x", "X-Forwarded-For", "203.0.113.50", "X-Real-IP", "192.0.2.99").statusCode())
        .isEqualTo(429);
  }

  @Test
  void filter_formParameterKeysAreNormalisedAndLeaveTheFormToTheHandler() throws Exception {
    HttpResponse<String> first = http().post("/login", "user=Carol");
    assertThat(first.body()).isEqualTo("hello /login Carol");
    assertThat(http().post("/login", "user=%20carol%20").headers().firstValue("X-RateLimit-Remaining"))
        .contains("0");
    seen(http().post("/login", "user=CAROL")).isRateLimited("login", 1800, "/login");
    assertThat(http().post("/login", "user=dave").statusCode()).isEqualTo(200);
  }

  @Test
  void filter_spelKeysReadTheExchangeAndTheRequest() throws Exception {
    assertThat(http().get("/tenant/a", "X-Tenant", "acme").statusCode()).isEqualTo(200);
    assertThat(http().get("/tenant/a", "X-Tenant", "acme").statusCode()).isEqualTo(429);
    assertThat(http().get("/tenant/b", "X-Tenant", "acme").statusCode()).as("the path is part of the key")
        .isEqualTo(200);
  }

  @Test
  void filter_principalKeysAreTheUserOfTheReactiveSecurityContext() throws Exception {
    String gina = "Basic " + Base64.getEncoder().encodeToString("gina:pw".getBytes(StandardCharsets.UTF_8));
    String hank = "Basic " + Base64.getEncoder().encodeToString("hank:pw".getBytes(StandardCharsets.UTF_8));
    assertThat(http().get("/me", "Authorization", gina).statusCode()).isEqualTo(200);
    seen(http().get("/me", "Authorization", gina)).isRateLimited("tenants", 3600, "/me");
    assertThat(http().get("/me", "Authorization", hank).statusCode()).as("another user, another bucket")
        .isEqualTo(200);
  }

  @Test
  void rateLimitedMonoMethod_isDeniedWith429AndTheLimitsHeaders() throws Exception {
    assertThat(http().get("/send", "X-User", "erin").body()).isEqualTo("sent for erin");
    assertThat(http().get("/send", "X-User", "erin").statusCode()).isEqualTo(200);
    seen(http().get("/send", "X-User", "erin"))
        .hasRateLimitHeaders("send", 2, 3600, 0, 3600).isRateLimited("send", 1800, "/send");
    assertThat(http().get("/send", "X-User", "frank").statusCode()).isEqualTo(200);
  }

  @Test
  void rateLimitedMonoMethod_aCountNoDecisionCanTake_is400NamingTheLimitAndTheBound_andTakesNothing()
      throws Exception {
    for (String bad : new String[] {"-1", "NaN", "1e309", "3", "1e300"}) {
      HttpResponse<String> refused = http().get("/send-many?copies=" + bad, "X-User", "gail");
      assertThat(refused.statusCode()).as(bad).isEqualTo(400);
      assertThat(refused.headers().firstValue("Content-Type")).contains("application/problem+json");
      assertThat(refused.body()).as(bad).contains("\"limit\":\"send\"", "\"maxCount\":2", "\"instance\":\"/send-many\"");
    }
    assertThat(http().get("/send-many?copies=NaN", "X-User", "gail").body()).contains("\"count\":\"NaN\"");
    assertThat(http().get("/send-many?copies=2", "X-User", "gail").body()).as("nothing was taken")
        .isEqualTo("2.0 sent for gail");
    assertThat(http().get("/send-many?copies=1", "X-User", "gail").statusCode()).isEqualTo(429);
  }

  @Test
  void reactiveApplication_hasTheWebFilterAndNoServletFilter() {
    assertThat(context.getBeansOfType(RateLimitWebFilter.class)).hasSize(1);
    assertThat(context.containsBean("rateLimitFilter")).isFalse();
  }
}

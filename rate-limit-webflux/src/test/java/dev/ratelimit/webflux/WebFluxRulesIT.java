package dev.ratelimit.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;
import reactor.core.publisher.Mono;

/**
 * The filter rules' {@code methods}, {@code charge-on}, {@code plan} and {@code condition} from
 * the same Boot properties as a servlet app, in a reactive Boot app on Reactor Netty (random
 * port), as a client sees them. {@code charge-on} settles by the status the response is
 * committed with: a handler's own, or an error handler's.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = WebFluxRulesIT.App.class,
    properties = {
        "ratelimit.limits.orders=fixed-window rate=1 period=1h",
        "ratelimit.limits.failed-logins=fixed-window rate=2 period=1h",
        "ratelimit.limits.search=fixed-window rate=2 period=1h",
        "ratelimit.plans.pro.search=fixed-window rate=4 period=1h",
        "ratelimit.limits.reports=fixed-window rate=1 period=1h",
        "ratelimit.limits.fragile=fixed-window rate=1 period=1h",
        "ratelimit.filter.rules[0].path=/orders", "ratelimit.filter.rules[0].limit=orders",
        "ratelimit.filter.rules[0].methods=POST,put",
        "ratelimit.filter.rules[1].path=/login/**", "ratelimit.filter.rules[1].limit=failed-logins",
        "ratelimit.filter.rules[1].key=param:user", "ratelimit.filter.rules[1].charge-on=401",
        "ratelimit.filter.rules[2].path=/search", "ratelimit.filter.rules[2].limit=search",
        "ratelimit.filter.rules[2].key=header:X-User",
        "ratelimit.filter.rules[2].plan=#{#request.headers.getFirst('X-Plan')}",
        "ratelimit.filter.rules[3].path=/reports", "ratelimit.filter.rules[3].limit=reports",
        "ratelimit.filter.rules[3].condition=#{#request.headers.getFirst('X-Internal') == null}",
        "ratelimit.filter.rules[4].path=/fragile", "ratelimit.filter.rules[4].limit=fragile",
        "ratelimit.filter.rules[4].condition=#{#request.headers.getFirst('X-Kind').length() > 3}",
        "ratelimit.filter.rules[4].plan=#{#exchange.request.headers.getFirst('X-Plan').toLowerCase()}",
        "ratelimit.limits.tenants=fixed-window rate=1 period=1h",
        "ratelimit.filter.rules[5].path=/tenant", "ratelimit.filter.rules[5].limit=tenants",
        "ratelimit.filter.rules[5].key=#{#request.headers.getFirst('X-Tenant').toLowerCase()}"})
class WebFluxRulesIT {
  @LocalServerPort
  int port;

  @SpringBootApplication
  static class App {
    /** Everything open: these rules need no user. */
    @Bean
    SecurityWebFilterChain security(ServerHttpSecurity http) {
      return http.csrf(csrf -> csrf.disable()).authorizeExchange(exchanges -> exchanges.anyExchange().permitAll())
          .build();
    }

    @RestController
    static class Endpoints {
      @GetMapping("/orders")
      Mono<String> list() {
        return Mono.just("orders");
      }

      @PostMapping("/orders")
      Mono<String> order() {
        return Mono.just("ordered");
      }

      @GetMapping("/login")
      Mono<ResponseEntity<String>> login(@RequestParam String user, @RequestParam String password) {
        return Mono.just("secret".equals(password) ? ResponseEntity.ok("welcome " + user)
            : ResponseEntity.status(HttpStatus.UNAUTHORIZED).body("wrong password"));
      }

      /** A failure the error handler answers: its status is the one that counts. */
      @GetMapping("/login/thrown")
      Mono<String> loginThrown(@RequestParam String user, @RequestParam String password) {
        return "secret".equals(password) ? Mono.just("welcome " + user)
            : Mono.error(new ResponseStatusException(HttpStatus.UNAUTHORIZED, "wrong password"));
      }

      @GetMapping({"/search", "/reports", "/fragile", "/tenant"})
      Mono<String> ok() {
        return Mono.just("ok");
      }
    }
  }

  private Http http() {
    return new Http(port);
  }

  @Test
  void methods_limitPostAndPutOnly() throws Exception {
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> list = http().get("/orders");
      assertThat(list.statusCode()).isEqualTo(200);
      assertThat(list.headers().firstValue("X-RateLimit-Limit")).isEmpty();
    }
    assertThat(http().send("POST", "/orders").statusCode()).isEqualTo(200);
    HttpResponse<String> denied = http().send("PUT", "/orders");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.headers().firstValue("Retry-After")).isPresent();
    assertThat(http().get("/orders").statusCode()).isEqualTo(200);
  }

  @Test
  void chargeOn401_successesAreNeverCharged_theThird401IsDenied() throws Exception {
    for (int i = 0; i < 5; i++) {
      assertThat(http().get("/login?user=ann&password=secret").statusCode()).isEqualTo(200);
    }
    assertThat(http().get("/login?user=ann&password=guess1").statusCode()).isEqualTo(401);
    assertThat(http().get("/login?user=ann&password=secret").statusCode()).isEqualTo(200);
    assertThat(http().get("/login?user=ann&password=guess2").statusCode()).isEqualTo(401);
    HttpResponse<String> third = http().get("/login?user=ann&password=guess3");
    assertThat(third.statusCode()).isEqualTo(429);
    assertThat(third.body()).contains("failed-logins");
    assertThat(http().get("/login?user=bob&password=secret").statusCode()).isEqualTo(200);
  }

  @Test
  void chargeOn401_countsTheErrorHandlersStatus_andNotItsSuccesses() throws Exception {
    for (int i = 0; i < 4; i++) {
      assertThat(http().get("/login/thrown?user=cid&password=secret").statusCode()).isEqualTo(200);
    }
    assertThat(http().get("/login/thrown?user=cid&password=guess1").statusCode()).isEqualTo(401);
    assertThat(http().get("/login/thrown?user=cid&password=guess2").statusCode()).isEqualTo(401);
    assertThat(http().get("/login/thrown?user=cid&password=secret").statusCode()).isEqualTo(429);
  }

  @Test
  void plan_twoUsersOnTwoPlans_getTwoLimits_anUnknownPlanIsTheDefault() throws Exception {
    assertThat(admittedOf("/search", "X-User", "free-user")).isEqualTo(2);
    assertThat(admittedOf("/search", "X-User", "pro-user", "X-Plan", "pro")).isEqualTo(4);
    assertThat(admittedOf("/search", "X-User", "hopeful", "X-Plan", "platinum")).isEqualTo(2);
    HttpResponse<String> pro = http().get("/search", "X-User", "pro-user-2", "X-Plan", "pro");
    assertThat(pro.headers().firstValue("X-RateLimit-Limit")).hasValue("4");
    assertThat(pro.headers().firstValue("RateLimit-Policy").orElseThrow()).contains("q=4");
  }

  @Test
  void condition_false_isNotCharged_andShowsNoHeaders() throws Exception {
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> internal = http().get("/reports", "X-Internal", "yes");
      assertThat(internal.statusCode()).isEqualTo(200);
      assertThat(internal.headers().firstValue("X-RateLimit-Limit")).isEmpty();
    }
    assertThat(http().get("/reports").statusCode()).isEqualTo(200);
    assertThat(http().get("/reports").statusCode()).isEqualTo(429);
  }

  @Test
  void expressionsThatFailOnARequest_neverAnswer500_theConditionHolds_thePlanIsTheDefault() throws Exception {
    HttpResponse<String> first = http().get("/fragile");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.headers().firstValue("X-RateLimit-Limit")).hasValue("1");
    HttpResponse<String> second = http().get("/fragile");
    assertThat(second.statusCode()).isEqualTo(429);
    assertThat(second.body()).doesNotContain("Exception");
  }

  @Test
  void keyThatFailsOnARequest_isAMissingKey_theGlobalBucket_never500() throws Exception {
    assertThat(http().get("/tenant", "X-Tenant", "ACME").statusCode()).isEqualTo(200);
    assertThat(http().get("/tenant", "X-Tenant", "acme").statusCode()).isEqualTo(429);
    assertThat(http().get("/tenant").statusCode()).isEqualTo(200);
    HttpResponse<String> second = http().get("/tenant");
    assertThat(second.statusCode()).isEqualTo(429);
    assertThat(second.body()).doesNotContain("Exception");
  }

  private int admittedOf(String path, String... headers) throws Exception {
    int admitted = 0;
    for (int i = 0; i < 10; i++) {
      int status = http().get(path, headers).statusCode();
      assertThat(status).isIn(200, 429);
      admitted += status == 200 ? 1 : 0;
    }
    return admitted;
  }
}

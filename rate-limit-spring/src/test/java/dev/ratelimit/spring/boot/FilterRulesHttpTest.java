package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The filter rules' {@code methods}, {@code charge-on}, {@code plan} and {@code condition} from
 * Boot properties, as a client of a real Boot app (Tomcat, random port) sees them; and
 * expressions that fail on a request, which never make a 500.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = FilterRulesHttpTest.App.class,
    properties = {
        "ratelimit.limits.orders=fixed-window rate=1 period=1h",
        "ratelimit.limits.failed-logins=fixed-window rate=2 period=1h",
        "ratelimit.limits.search=fixed-window rate=2 period=1h",
        "ratelimit.plans.pro.search=fixed-window rate=4 period=1h",
        "ratelimit.limits.reports=fixed-window rate=1 period=1h",
        "ratelimit.limits.fragile=fixed-window rate=1 period=1h",
        "ratelimit.filter.rules[0].path=/orders", "ratelimit.filter.rules[0].limit=orders",
        "ratelimit.filter.rules[0].methods=POST,put",
        "ratelimit.filter.rules[1].path=/login", "ratelimit.filter.rules[1].limit=failed-logins",
        "ratelimit.filter.rules[1].key=param:user", "ratelimit.filter.rules[1].charge-on=401",
        "ratelimit.filter.rules[2].path=/search", "ratelimit.filter.rules[2].limit=search",
        "ratelimit.filter.rules[2].key=header:X-User",
        "ratelimit.filter.rules[2].plan=#{#request.getHeader('X-Plan')}",
        "ratelimit.filter.rules[3].path=/reports", "ratelimit.filter.rules[3].limit=reports",
        "ratelimit.filter.rules[3].condition=#{#request.getHeader('X-Internal') == null}",
        "ratelimit.filter.rules[4].path=/fragile", "ratelimit.filter.rules[4].limit=fragile",
        "ratelimit.filter.rules[4].condition=#{#request.getHeader('X-Kind').length() > 3}",
        "ratelimit.filter.rules[4].plan=#{#request.getHeader('X-Plan').toLowerCase()}",
        "ratelimit.limits.tenants=fixed-window rate=1 period=1h",
        "ratelimit.filter.rules[5].path=/tenant", "ratelimit.filter.rules[5].limit=tenants",
        "ratelimit.filter.rules[5].key=#{#request.getHeader('X-Tenant').toLowerCase()}"})
class FilterRulesHttpTest {
  private final HttpClient client = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @AppWithoutSecurity
  static class App {
    @RestController
    static class Endpoints {
      @GetMapping("/orders")
      String list() {
        return "orders";
      }

      @PostMapping("/orders")
      String order() {
        return "ordered";
      }

      @GetMapping("/login")
      ResponseEntity<String> login(@RequestParam String user, @RequestParam String password) {
        return "secret".equals(password) ? ResponseEntity.ok("welcome " + user)
            : ResponseEntity.status(HttpStatus.UNAUTHORIZED).body("wrong password");
      }

      @GetMapping({"/search", "/reports", "/fragile", "/tenant"})
      String ok() {
        return "ok";
      }
    }
  }

  @Test
  void methods_limitPostOnly_getIsNeitherLimitedNorShownHeaders() throws Exception {
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> list = send("GET", "/orders");
      assertThat(list.statusCode()).isEqualTo(200);
      assertThat(list.headers().firstValue("X-RateLimit-Limit")).isEmpty();
    }
    HttpResponse<String> first = send("POST", "/orders");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
    HttpResponse<String> second = send("PUT", "/orders"); // put, written lower case, is the same limit
    assertThat(second.statusCode()).isEqualTo(429);
    assertThat(second.headers().firstValue("Retry-After")).isPresent();
    assertThat(send("GET", "/orders").statusCode()).isEqualTo(200);
  }

  @Test
  void chargeOn401_successesAreNeverCharged_theThird401IsDenied() throws Exception {
    for (int i = 0; i < 5; i++) {
      assertThat(send("GET", "/login?user=ann&password=secret").statusCode()).isEqualTo(200);
    }
    assertThat(send("GET", "/login?user=ann&password=guess1").statusCode()).isEqualTo(401);
    assertThat(send("GET", "/login?user=ann&password=secret").statusCode()).isEqualTo(200);
    assertThat(send("GET", "/login?user=ann&password=guess2").statusCode()).isEqualTo(401);
    HttpResponse<String> third = send("GET", "/login?user=ann&password=guess3");
    assertThat(third.statusCode()).isEqualTo(429);
    assertThat(third.body()).contains("failed-logins");
    // the right password too is refused now: the failures used the limit up
    assertThat(send("GET", "/login?user=ann&password=secret").statusCode()).isEqualTo(429);
    assertThat(send("GET", "/login?user=bob&password=secret").statusCode()).isEqualTo(200);
  }

  @Test
  void plan_twoUsersOnTwoPlans_getTwoLimits_anUnknownPlanIsTheDefault() throws Exception {
    assertThat(admittedOf("/search", "X-User", "free-user")).isEqualTo(2);
    assertThat(admittedOf("/search", "X-User", "pro-user", "X-Plan", "pro")).isEqualTo(4);
    assertThat(admittedOf("/search", "X-User", "hopeful", "X-Plan", "platinum")).isEqualTo(2);
    HttpResponse<String> pro = send("GET", "/search", "X-User", "pro-user-2", "X-Plan", "pro");
    assertThat(pro.headers().firstValue("X-RateLimit-Limit")).hasValue("4");
    assertThat(pro.headers().firstValue("RateLimit-Policy")).hasValueSatisfying(
        policy -> assertThat(policy).contains("q=4"));
  }

  @Test
  void condition_false_isNotCharged_andShowsNoHeaders() throws Exception {
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> internal = send("GET", "/reports", "X-Internal", "yes");
      assertThat(internal.statusCode()).isEqualTo(200);
      assertThat(internal.headers().firstValue("X-RateLimit-Limit")).isEmpty();
    }
    assertThat(send("GET", "/reports").statusCode()).isEqualTo(200);
    assertThat(send("GET", "/reports").statusCode()).isEqualTo(429);
    assertThat(send("GET", "/reports", "X-Internal", "yes").statusCode()).isEqualTo(200);
  }

  @Test
  void expressionsThatFailOnARequest_neverAnswer500_theConditionHolds_thePlanIsTheDefault() throws Exception {
    // no X-Kind: the condition fails, so the rule applies; no X-Plan: the plan fails, so the default plan
    HttpResponse<String> first = send("GET", "/fragile");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.headers().firstValue("X-RateLimit-Limit")).hasValue("1");
    HttpResponse<String> second = send("GET", "/fragile");
    assertThat(second.statusCode()).isEqualTo(429);
    assertThat(second.body()).doesNotContain("Exception");
  }

  @Test
  void keyThatFailsOnARequest_isAMissingKey_theGlobalBucket_never500() throws Exception {
    assertThat(send("GET", "/tenant", "X-Tenant", "ACME").statusCode()).isEqualTo(200);
    assertThat(send("GET", "/tenant", "X-Tenant", "acme").statusCode()).isEqualTo(429);
    // no X-Tenant: the key fails, so it is missing: every such request shares the global bucket
    assertThat(send("GET", "/tenant").statusCode()).isEqualTo(200);
    HttpResponse<String> second = send("GET", "/tenant");
    assertThat(second.statusCode()).isEqualTo(429);
    assertThat(second.body()).doesNotContain("Exception");
  }

  /** How many of 10 requests are admitted. */
  private int admittedOf(String path, String... headers) throws Exception {
    int admitted = 0;
    for (int i = 0; i < 10; i++) {
      int status = send("GET", path, headers).statusCode();
      assertThat(status).isIn(200, 429);
      admitted += status == 200 ? 1 : 0;
    }
    return admitted;
  }

  private HttpResponse<String> send(String method, String path, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
        .method(method, HttpRequest.BodyPublishers.noBody());
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}

package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.spring.RateLimited;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Plans, conditions, charging by outcome, shadow mode and a runtime change, as a client and an
 * operator see them from a real Boot app on a random port.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = BusinessLimitsHttpTest.App.class,
    properties = {
        "ratelimit.limits.search=fixed-window rate=2 period=1h",
        "ratelimit.plans.pro.search=fixed-window rate=4 period=1h",
        "ratelimit.limits.exports=fixed-window rate=1 period=1h",
        "ratelimit.limits.failed-logins=fixed-window rate=2 period=1h",
        "ratelimit.limits.watched=fixed-window rate=1 period=1h mode=shadow",
        "ratelimit.limits.changing=fixed-window rate=1 period=1h",
        "management.endpoints.web.exposure.include=ratelimits",
        "management.endpoint.ratelimits.access=unrestricted"})
class BusinessLimitsHttpTest {
  private final HttpClient client = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @AppWithoutSecurity
  static class App {
    @RestController
    static class Endpoints {
      private final Work work;

      Endpoints(Work work) {
        this.work = work;
      }

      @GetMapping("/search")
      String search(@RequestHeader("X-User") String user, @RequestHeader("X-Plan") String plan) {
        return work.search(user, plan);
      }

      @GetMapping("/export")
      String export(@RequestHeader("X-User") String user, @RequestParam(defaultValue = "false") boolean small) {
        return work.export(user, small);
      }

      @GetMapping("/login")
      String login(@RequestParam String user, @RequestParam String password) {
        return work.login(user, password) ? "welcome" : "wrong password";
      }

      @GetMapping("/watched")
      String watched(@RequestHeader("X-User") String user) {
        return work.watched(user);
      }

      @GetMapping("/changing")
      String changing(@RequestHeader("X-User") String user) {
        return work.changing(user);
      }
    }

    @Service
    static class Work {
      @RateLimited(name = "search", key = "#user", plan = "#plan")
      public String search(String user, String plan) {
        return "results for " + user;
      }

      @RateLimited(name = "exports", key = "#user", condition = "!#small")
      public String export(String user, boolean small) {
        return "export";
      }

      @RateLimited(name = "failed-logins", key = "#user", chargeIf = "#result == false")
      public boolean login(String user, String password) {
        return password.equals("secret");
      }

      @RateLimited(name = "watched", key = "#user")
      public String watched(String user) {
        return "watched";
      }

      @RateLimited(name = "changing", key = "#user")
      public String changing(String user) {
        return "changing";
      }
    }
  }

  private HttpResponse<String> get(String path, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path));
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path, String json) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void plans_twoUsersOnTwoPlans_eachGetTheirPlansLimit() throws Exception {
    for (int i = 0; i < 2; i++) {
      assertThat(get("/search", "X-User", "free-user", "X-Plan", "free").statusCode()).isEqualTo(200);
    }
    assertThat(get("/search", "X-User", "free-user", "X-Plan", "free").statusCode()).isEqualTo(429);
    for (int i = 0; i < 4; i++) {
      assertThat(get("/search", "X-User", "pro-user", "X-Plan", "pro").statusCode()).isEqualTo(200);
    }
    assertThat(get("/search", "X-User", "pro-user", "X-Plan", "pro").statusCode()).isEqualTo(429);
  }

  @Test
  void condition_false_isNeitherLimitedNorCharged() throws Exception {
    for (int i = 0; i < 5; i++) {
      assertThat(get("/export?small=true", "X-User", "ann").statusCode()).isEqualTo(200);
    }
    assertThat(get("/export", "X-User", "ann").statusCode()).isEqualTo(200);
    assertThat(get("/export", "X-User", "ann").statusCode()).isEqualTo(429);
  }

  @Test
  void chargeIf_countsFailedLoginsOnly() throws Exception {
    for (int i = 0; i < 5; i++) {
      assertThat(get("/login?user=bob&password=secret").body()).isEqualTo("welcome");
    }
    assertThat(get("/login?user=bob&password=guess1").body()).isEqualTo("wrong password");
    assertThat(get("/login?user=bob&password=guess2").body()).isEqualTo("wrong password");
    assertThat(get("/login?user=bob&password=secret").statusCode()).as("two failures used the limit").isEqualTo(429);
  }

  @Test
  void shadow_neverDenies_andSendsNoHeaders() throws Exception {
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> response = get("/watched", "X-User", "cy");
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.headers().firstValue("Retry-After")).isEmpty();
    }
  }

  @Test
  void endpoint_changesALimitAtRuntime_andABadSpecIs400WithTheParsersMessage() throws Exception {
    assertThat(get("/changing", "X-User", "dee").statusCode()).isEqualTo(200);
    assertThat(get("/changing", "X-User", "dee").statusCode()).isEqualTo(429);

    HttpResponse<String> bad = post("/actuator/ratelimits/changing", "{\"spec\": \"fixed-window rate=3 period=1x\"}");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("bad value '1x' for period");
    assertThat(get("/changing", "X-User", "dee").statusCode()).as("nothing changed").isEqualTo(429);

    HttpResponse<String> changed = post("/actuator/ratelimits/changing", "{\"spec\": \"fixed-window rate=3 period=1h\"}");
    assertThat(changed.statusCode()).isEqualTo(200);
    assertThat(changed.body()).contains("fixed-window rate=3 period=1h");
    assertThat(get("/changing", "X-User", "dee").statusCode()).as("1 used of 3").isEqualTo(200);
    assertThat(get("/changing", "X-User", "dee").statusCode()).isEqualTo(200);
    assertThat(get("/changing", "X-User", "dee").statusCode()).isEqualTo(429);
    assertThat(get("/actuator/ratelimits").body()).contains("fixed-window rate=3 period=1h");
    assertThat(post("/actuator/ratelimits/nope", "{\"spec\": \"10/1m\"}").statusCode()).isEqualTo(404);
    assertThat(post("/actuator/ratelimits/changing", "{\"spec\": \"10/1m\", \"plan\": \"gold\"}").statusCode())
        .isEqualTo(400);
  }
}

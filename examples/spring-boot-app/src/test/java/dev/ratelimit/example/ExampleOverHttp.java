package dev.ratelimit.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The demo as a client and an operator see it over HTTP, with Spring Security's HTTP basic:
 * on a random port in the test's JVM ({@link ExampleApplicationTest}), and as the AOT-processed
 * jar ({@link AotExampleIT}). One application serves every test, so each has its own users or keys.
 */
abstract class ExampleOverHttp {
  /** The demo's users (SecurityConfiguration). */
  private static final Map<String, String> PASSWORDS =
      Map.of("ann", "secret", "bob", "hunter2", "cy", "tokens", "batch", "nightly", "admin", "admin");

  private final HttpClient client = HttpClient.newHttpClient();

  /** The port the application listens on. */
  abstract int port();

  static String basic(String user) {
    return "Basic " + Base64.getEncoder()
        .encodeToString((user + ":" + PASSWORDS.get(user)).getBytes(StandardCharsets.UTF_8));
  }

  private HttpResponse<String> send(String method, String path, String user, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port() + path))
        .method(method, HttpRequest.BodyPublishers.noBody());
    if (user != null) {
      request.header("Authorization", basic(user));
    }
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path, String user, String json) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port() + path))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
    if (user != null) {
      request.header("Authorization", basic(user));
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** How many of {@code requests} to {@code path} are admitted; the others are refused with 429. */
  private int admittedOf(int requests, String path, String user, String... headers) throws Exception {
    int admitted = 0;
    for (int i = 0; i < requests; i++) {
      int status = send("GET", path, user, headers).statusCode();
      assertThat(status).isIn(200, 429);
      admitted += status == 200 ? 1 : 0;
    }
    return admitted;
  }

  private static String encoded(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  @Test
  void api_isLimitedPerClientAddressByTheFilterRule() throws Exception {
    for (int i = 0; i < 5; i++) {
      assertThat(send("GET", "/api/hello", null).statusCode()).isEqualTo(200);
    }
    HttpResponse<String> denied = send("GET", "/api/hello", null);
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.headers().firstValue("RateLimit-Policy")).contains("\"api\";q=5;w=10");
  }

  @Test
  void me_isLimitedPerAuthenticatedUserByThePrincipalRule() throws Exception {
    // the demo runs on the real clock: per-user refills one request every 6 s, so a slow machine
    // may see one more admitted for each 6 s the loop takes
    long start = System.nanoTime();
    HttpResponse<String> first = send("GET", "/me", "bob");
    assertThat(first.body()).isEqualTo("{\"user\":\"bob\"}");
    assertThat(first.headers().firstValue("X-RateLimit-Remaining")).contains("9");
    int admitted = 1;
    HttpResponse<String> me;
    while ((me = send("GET", "/me", "bob")).statusCode() == 200 && admitted < 100) {
      admitted++;
    }
    long refills = (System.nanoTime() - start) / 6_000_000_000L;
    assertThat(me.statusCode()).isEqualTo(429);
    assertThat(admitted).as("the capacity, and what refilled while the loop ran").isBetween(10, 10 + (int) refills);
    HttpResponse<String> other = send("GET", "/me", "cy");
    assertThat(other.statusCode()).as("another user, another bucket").isEqualTo(200);
    assertThat(other.headers().firstValue("X-RateLimit-Remaining")).contains("9");
    assertThat(send("GET", "/me", null).statusCode()).as("nobody authenticated").isEqualTo(401);
  }

  @Test
  void messages_areLimitedPerAuthenticatedUserWithHeadersOnEveryAnswer() throws Exception {
    for (int left = 2; left >= 0; left--) {
      HttpResponse<String> sent = send("POST", "/messages?text=hi", "ann");
      assertThat(sent.body()).contains("ann sent: hi");
      assertThat(sent.headers().firstValue("X-RateLimit-Remaining")).contains(Integer.toString(left));
    }
    HttpResponse<String> denied = send("POST", "/messages?text=hi", "ann");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.body()).contains("\"limit\":\"send-message\"");
    assertThat(send("POST", "/messages?text=hi", "bob").statusCode()).isEqualTo(200);
    assertThat(send("POST", "/messages?text=hi", null).statusCode()).isEqualTo(401);
  }

  @Test
  void completions_costTheTokensTheModelReported_andABadMaxTokensOrAHugePromptIs400() throws Exception {
    String prompt = "x".repeat(400); // charged 100 + 500 up front; the model reports 100 + 250
    HttpResponse<String> first = send("POST", "/completions?maxTokens=500&prompt=" + prompt, "cy");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).contains("completion of 400 characters, 250 tokens");
    assertThat(tokensLeft("cy")).as("1000 - 350, and what refilled since (1000 a minute)").isBetween(650.0, 700.0);
    assertThat(send("POST", "/completions?maxTokens=500&prompt=" + prompt, "cy").statusCode()).isEqualTo(200);
    HttpResponse<String> over = send("POST", "/completions?maxTokens=500&prompt=" + prompt, "cy"); // 600 > ~300
    assertThat(over.statusCode()).isEqualTo(429);
    assertThat(over.body()).contains("\"limit\":\"llm-tokens\"");
    for (String maxTokens : new String[] {"-100", "0", "501", "2147483647", "99999999999", "1e9"}) {
      HttpResponse<String> bad = send("POST", "/completions?prompt=hi&maxTokens=" + encoded(maxTokens), "bob");
      assertThat(bad.statusCode()).as(maxTokens).isEqualTo(400);
      assertThat(bad.headers().firstValue("Content-Type")).as(maxTokens).contains("application/problem+json");
      assertThat(bad.body()).as(maxTokens).doesNotContain("Exception").doesNotContain("at dev.");
    }
    assertThat(send("POST", "/completions?prompt=hi&maxTokens=-100", "bob").body()).contains("maxTokens must be from 1 to 500");
    HttpResponse<String> huge = send("POST", "/completions?maxTokens=1&prompt=" + "x".repeat(6000), "bob");
    assertThat(huge.statusCode()).isEqualTo(400);
    assertThat(huge.body()).contains("\"limit\":\"llm-tokens\"").contains("\"count\":1501").contains("\"maxCount\":1000");
    assertThat(send("POST", "/completions?maxTokens=50&prompt=hi", "bob").statusCode()).as("nothing was charged")
        .isEqualTo(200);
  }

  private double tokensLeft(String user) throws Exception {
    return remaining("/actuator/ratelimits/llm-tokens/" + user);
  }

  /** The {@code remaining} of a key as the operator reads it (a double as Jackson writes it: 9.9E-4 too). */
  private double remaining(String path) throws Exception {
    java.util.regex.Matcher remaining = java.util.regex.Pattern.compile("\"remaining\":(-?[0-9.]+(?:[eE][-+]?[0-9]+)?)")
        .matcher(send("GET", path, "admin").body());
    assertThat(remaining.find()).isTrue();
    return Double.parseDouble(remaining.group(1));
  }

  @Test
  void login_locksAfterFiveFailures_perNormalisedUserName_successesNotCounted() throws Exception {
    for (String typed : new String[] {"ann", "Ann", " ANN", "ann "}) {
      assertThat(send("POST", "/login?user=" + encoded(typed) + "&password=wrong", null).statusCode()).isEqualTo(401);
    }
    for (int i = 0; i < 3; i++) {
      assertThat(send("POST", "/login?user=ann&password=secret", null).statusCode()).as("a success is refunded")
          .isEqualTo(200);
    }
    assertThat(send("POST", "/login?user=aNN%20&password=wrong", null).statusCode()).as("the fifth failure")
        .isEqualTo(401);
    HttpResponse<String> locked = send("POST", "/login?user=ann&password=secret", null);
    assertThat(locked.statusCode()).as("locked").isEqualTo(429);
    assertThat(locked.body()).contains("\"limit\":\"login\"");
    assertThat(send("POST", "/login?user=bob&password=hunter2", null).statusCode()).as("another user").isEqualTo(200);
  }

  @Test
  void search_thePlanFollowsTheUser_aClaimedPlanHeaderAdmitsNothingExtra() throws Exception {
    assertThat(admittedOf(50, "/search?q=a", "ann", "X-Plan", "pro")).as("ann, free, sending X-Plan: pro").isEqualTo(5);
    assertThat(admittedOf(50, "/search?q=a", "cy")).as("cy, on the pro plan").isEqualTo(50);
    HttpResponse<String> pro = send("GET", "/search?q=a", "cy");
    assertThat(pro.headers().firstValue("RateLimit-Policy")).contains("\"search\";q=1000;w=3600");
  }

  @Test
  void search_internalServicesAreNotLimited_aClaimedInternalHeaderIs() throws Exception {
    assertThat(admittedOf(50, "/search?q=b", "batch")).as("batch, an internal service").isEqualTo(50);
    assertThat(send("GET", "/search?q=b", "batch").headers().firstValue("X-RateLimit-Limit")).isEmpty();
    assertThat(admittedOf(50, "/search?q=b", "bob", "X-Internal", "1", "X-Plan", "pro", "X-Forwarded-For", "10.0.0.1"))
        .as("bob, sending X-Internal, X-Plan and X-Forwarded-For").isEqualTo(5);
  }

  @Test
  void health_isOpen_withTheRateLimitComponent_andItsDetailsForAdmin() throws Exception {
    HttpResponse<String> anonymous = send("GET", "/actuator/health", null);
    assertThat(anonymous.statusCode()).isEqualTo(200);
    assertThat(anonymous.body()).contains("\"rateLimit\":{\"status\":\"UP\"}");
    assertThat(send("GET", "/actuator/health/rateLimit", "admin").body()).contains("\"status\":\"UP\"")
        .contains("\"store\":\"InMemoryStore\"");
  }

  @Test
  void operator_readsAndResetsAUsersKey_andListsTheLimits_andTheMetrics() throws Exception {
    send("POST", "/messages?text=hi", "admin");
    HttpResponse<String> state = send("GET", "/actuator/ratelimits/send-message/admin", "admin");
    assertThat(state.statusCode()).isEqualTo(200);
    assertThat(state.body()).contains("\"limit\":3.0").contains("\"remaining\":2.");
    assertThat(send("DELETE", "/actuator/ratelimits/send-message/admin", "admin").statusCode()).isEqualTo(204);
    assertThat(send("GET", "/actuator/ratelimits/send-message/admin", "admin").body()).contains("\"remaining\":3.0");
    assertThat(send("DELETE", "/actuator/ratelimits/no-such-limit/admin", "admin").statusCode()).isEqualTo(404);
    assertThat(send("GET", "/actuator/ratelimits", "admin").body())
        .contains("\"exports\":{\"spec\":\"gcra rate=1 period=2s\"");
    assertThat(send("GET", "/actuator/metrics", "admin").body()).contains("\"ratelimit.decisions\"")
        .contains("\"ratelimit.store.available\"");
    // exports: only this test uses it; an operator's look at a key is no decision
    assertThat(send("GET", "/reports/export", "bob").statusCode()).isEqualTo(200);
    assertThat(send("GET", "/actuator/ratelimits/exports/bob", "admin").statusCode()).isEqualTo(200);
    assertThat(send("GET", "/actuator/metrics/ratelimit.decisions?tag=limit:exports&tag=outcome:allowed", "admin")
        .body()).contains("\"measurements\":[{\"statistic\":\"COUNT\",\"value\":1.0}]");
    assertThat(send("GET", "/actuator/metrics/ratelimit.decisions?tag=limit:exports&tag=outcome:denied", "admin")
        .body()).contains("\"value\":0.0");
    assertThat(send("GET", "/actuator/ratelimits", "ann").statusCode()).as("not an operator").isEqualTo(403);
    assertThat(send("GET", "/actuator/ratelimits", null).statusCode()).isEqualTo(401);
  }

  @Test
  void operatorWrites_anonymousIs401_aUserIs403_theOperatorResetsAndChanges() throws Exception {
    String bobsKey = "/actuator/ratelimits/search?key=bob";
    String raise = "{\"spec\": \"token-bucket rate=1000000000 period=1s\"}";
    assertThat(send("DELETE", bobsKey, null).statusCode()).as("anonymous reset").isEqualTo(401);
    assertThat(post("/actuator/ratelimits/search", null, raise).statusCode()).as("anonymous change").isEqualTo(401);
    assertThat(send("DELETE", bobsKey, "bob").statusCode()).as("bob resets his own bucket").isEqualTo(403);
    assertThat(send("DELETE", "/actuator/ratelimits/search/bob", "bob").statusCode()).isEqualTo(403);
    assertThat(post("/actuator/ratelimits/search", "bob", raise).statusCode()).as("bob raises the limit")
        .isEqualTo(403);
    assertThat(send("GET", "/actuator/ratelimits", "admin").body()).as("the limit is as configured")
        .contains("\"search\":{\"spec\":\"token-bucket rate=5 period=1h\"");

    assertThat(admittedOf(10, "/search?q=c", "admin")).isEqualTo(5);
    assertThat(remaining("/actuator/ratelimits/search?key=admin")).as("spent, but for what refilled since")
        .isLessThan(1);
    assertThat(send("DELETE", "/actuator/ratelimits/search?key=admin", "admin").statusCode()).isEqualTo(204);
    assertThat(send("GET", "/search?q=c", "admin").statusCode()).as("the operator's reset").isEqualTo(200);
    // the operator's change: the same numbers, which keep every key's state, so the other tests see no change
    HttpResponse<String> changed = post("/actuator/ratelimits/search", "admin",
        "{\"spec\": \"token-bucket rate=5 period=1h\"}");
    assertThat(changed.statusCode()).isEqualTo(200);
    assertThat(changed.body()).contains("\"previous\":\"token-bucket rate=5 period=1h\"");
  }

}

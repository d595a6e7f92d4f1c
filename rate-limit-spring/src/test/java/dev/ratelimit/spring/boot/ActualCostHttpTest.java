package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.spring.RateLimited;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Charging what a call really cost, as an operator sees it from a real Boot app on a random port:
 * {@code /actuator/ratelimits/{limit}/{key}} shows the key's {@code remaining} drop by exactly the
 * cost the call stated, not by the estimate charged up front: through {@code @RateLimited(actual)}
 * (a value and a {@code CompletableFuture} answered by Spring MVC asynchronously), and through a
 * filter rule's {@code cost-header} on the embedded container, whose header the client never sees.
 * Time stands still ({@link ManualClock}), so the figures are exact.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = ActualCostHttpTest.App.class,
    properties = {
        "ratelimit.limits.tokens=token-bucket rate=1000 period=1h capacity=100000",
        "ratelimit.filter.rules[0].path=/metered/**",
        "ratelimit.filter.rules[0].limit=tokens",
        "ratelimit.filter.rules[0].key=header:X-User",
        "ratelimit.filter.rules[0].cost=100",
        "ratelimit.filter.rules[0].cost-header=X-Tokens",
        "management.endpoints.web.exposure.include=ratelimits"})
class ActualCostHttpTest {
  private static final Pattern REMAINING = Pattern.compile("\"remaining\":([-0-9.E]+)");
  private final HttpClient client = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @AppWithoutSecurity
  static class App {
    @Bean
    ManualClock rateLimitClock() {
      return new ManualClock(1_767_225_600_000L);
    }

    @RestController
    static class Endpoints {
      private final Model model;

      Endpoints(Model model) {
        this.model = model;
      }

      @GetMapping("/complete")
      String complete(@RequestHeader("X-User") String user, @RequestParam long tokens) {
        return model.complete(user, tokens).text();
      }

      @GetMapping("/later")
      CompletableFuture<String> later(@RequestHeader("X-User") String user, @RequestParam long tokens) {
        return model.later(user, tokens).thenApply(Answer::text);
      }

      /** The application states what the request cost; the filter settles with it and takes it out. */
      @GetMapping("/metered/answer")
      ResponseEntity<String> metered(@RequestParam String tokens) {
        return ResponseEntity.ok().header("X-Tokens", tokens).body("metered");
      }
    }

    @Service
    static class Model {
      @RateLimited(name = "tokens", key = "#user", count = "100", actual = "#result.tokens()")
      public Answer complete(String user, long tokens) {
        return new Answer("answer using " + tokens, tokens);
      }

      @RateLimited(name = "tokens", key = "#user", count = "100", actual = "#result.tokens()")
      public CompletableFuture<Answer> later(String user, long tokens) {
        return CompletableFuture.supplyAsync(() -> new Answer("later", tokens));
      }
    }
  }

  /** A model's answer and the tokens it used. */
  record Answer(String text, long tokens) {}

  private HttpResponse<String> get(String path, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path));
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The key's remaining units as the operator's endpoint shows them. */
  private double remaining(String user) throws Exception {
    HttpResponse<String> state = get("/actuator/ratelimits/tokens/" + user);
    assertThat(state.statusCode()).as(state.body()).isEqualTo(200);
    Matcher matcher = REMAINING.matcher(state.body());
    assertThat(matcher.find()).as(state.body()).isTrue();
    return Double.parseDouble(matcher.group(1));
  }

  @Test
  void rateLimitedActual_dropsRemainingByExactlyWhatTheCallCost() throws Exception {
    double before = remaining("ann");
    HttpResponse<String> answer = get("/complete?tokens=37", "X-User", "ann");
    assertThat(answer.body()).isEqualTo("answer using 37");
    assertThat(before - remaining("ann")).isEqualTo(37);
    get("/complete?tokens=1500", "X-User", "ann");
    assertThat(before - remaining("ann")).as("above the estimate of 100: the difference taken").isEqualTo(1537);
  }

  @Test
  void rateLimitedActual_onACompletableFuture_dropsRemainingByExactlyWhatItCost() throws Exception {
    double before = remaining("bea");
    assertThat(get("/later?tokens=640", "X-User", "bea").body()).isEqualTo("later");
    assertThat(before - remaining("bea")).isEqualTo(640);
  }

  @Test
  void costHeader_dropsRemainingByExactlyTheStatedCost_andTheClientNeverSeesIt() throws Exception {
    double before = remaining("cid");
    HttpResponse<String> answer = get("/metered/answer?tokens=12.5", "X-User", "cid");
    assertThat(answer.body()).isEqualTo("metered");
    assertThat(answer.headers().firstValue("X-Tokens")).isEmpty();
    assertThat(answer.headers().firstValue("X-RateLimit-Remaining")).as("the estimate, charged up front")
        .hasValue(String.valueOf((long) before - 100));
    assertThat(before - remaining("cid")).isEqualTo(12.5);
    get("/metered/answer?tokens=-3", "X-User", "cid");
    assertThat(before - remaining("cid")).as("no cost stated: the estimate stays").isEqualTo(112.5);
  }
}

package dev.ratelimit.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.limiter.RateLimiter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code cost-header} rules from Boot's properties in a reactive application on Reactor Netty
 * (random port), as a client sees them: each request charged its rule's cost up front and settled
 * with what the handler states in {@code X-Tokens} when the response is committed (a value
 * answer, a streamed one, one answered later, an error's), the header taken out of what the
 * client receives unless passed; concurrent clients end at exactly capacity − Σ stated costs.
 * Time stands still ({@link ManualClock}); the key's units are read from the limiter.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = WebFluxCostHeaderIT.App.class,
    properties = {
        "ratelimit.limits.tokens=token-bucket rate=100000 period=1h",
        "ratelimit.filter.rules[0].path=/llm/**", "ratelimit.filter.rules[0].limit=tokens",
        "ratelimit.filter.rules[0].key=header:X-User", "ratelimit.filter.rules[0].cost=100",
        "ratelimit.filter.rules[0].cost-header=X-Tokens",
        "ratelimit.filter.rules[1].path=/shown/**", "ratelimit.filter.rules[1].limit=tokens",
        "ratelimit.filter.rules[1].key=header:X-User", "ratelimit.filter.rules[1].cost=100",
        "ratelimit.filter.rules[1].cost-header=X-Tokens", "ratelimit.filter.rules[1].cost-header-pass=true",
        "ratelimit.filter.rules[2].path=/paid/**", "ratelimit.filter.rules[2].limit=tokens",
        "ratelimit.filter.rules[2].key=header:X-User", "ratelimit.filter.rules[2].cost=100",
        "ratelimit.filter.rules[2].cost-header=X-Tokens", "ratelimit.filter.rules[2].charge-on=2xx"})
class WebFluxCostHeaderIT {
  private static final int CAPACITY = 100_000;

  @LocalServerPort
  int port;

  @Autowired
  RateLimiter limiter;

  @SpringBootApplication
  static class App {
    @Bean
    SecurityWebFilterChain security(ServerHttpSecurity http) {
      return http.authorizeExchange(exchanges -> exchanges.anyExchange().permitAll()).build();
    }

    @Bean
    ManualClock rateLimitClock() {
      return new ManualClock(1_700_000_000_000L);
    }

    /** Answers stating {@code tokens} in X-Tokens (none without), in each way a handler may. */
    @RestController
    static class Endpoints {
      @GetMapping({"/llm/answer", "/shown/answer", "/paid/answer"})
      Mono<ResponseEntity<String>> answer(@RequestParam(required = false) List<String> tokens,
          @RequestParam(defaultValue = "200") int status) {
        ResponseEntity.BodyBuilder answer = ResponseEntity.status(status);
        if (tokens != null) {
          answer.header("X-Tokens", tokens.toArray(String[]::new));
        }
        return Mono.just(answer.body("answer"));
      }

      /** Streamed: the header set before the first chunk, which commits the response. */
      @GetMapping("/llm/stream")
      Flux<String> stream(@RequestParam String tokens, ServerWebExchange exchange) {
        exchange.getResponse().getHeaders().add("X-Tokens", tokens);
        return Flux.just("one ", "two ", "three");
      }

      /** Answered later, on another thread. */
      @GetMapping("/llm/later")
      Mono<ResponseEntity<String>> later(@RequestParam String tokens) {
        return Mono.delay(Duration.ofMillis(1)).map(tick -> ResponseEntity.ok().header("X-Tokens", tokens).body("later"));
      }

      /** Fails after stating its cost: the error handler answers 503. */
      @GetMapping("/paid/fail")
      Mono<String> fail(@RequestParam String tokens, ServerWebExchange exchange) {
        exchange.getResponse().getHeaders().add("X-Tokens", tokens);
        return Mono.error(new ResponseStatusException(HttpStatus.SERVICE_UNAVAILABLE));
      }
    }
  }

  private double remaining(String user) {
    return limiter.named("tokens").check(user, 0).remaining();
  }

  private HttpResponse<String> get(String path, String user) throws Exception {
    return new Http(port).get(path, "X-User", user);
  }

  @Test
  void statedCost_settlesEachRequest_andTheClientNeverSeesTheHeader() throws Exception {
    HttpResponse<String> answer = get("/llm/answer?tokens=30", "ann");
    assertThat(answer.body()).isEqualTo("answer");
    assertThat(answer.headers().firstValue("X-RateLimit-Remaining")).as("the estimate, up front").contains("99900");
    assertThat(answer.headers().firstValue("X-Tokens")).isEmpty();
    HttpResponse<String> streamed = get("/llm/stream?tokens=250", "ann");
    assertThat(streamed.body()).contains("three");
    assertThat(streamed.headers().firstValue("X-Tokens")).isEmpty();
    HttpResponse<String> later = get("/llm/later?tokens=0.5", "ann");
    assertThat(later.body()).isEqualTo("later");
    assertThat(later.headers().firstValue("X-Tokens")).isEmpty();
    assertThat(remaining("ann")).isEqualTo(CAPACITY - 280.5);
  }

  @Test
  void passedHeader_reachesTheClient() throws Exception {
    HttpResponse<String> shown = get("/shown/answer?tokens=12", "bea");
    assertThat(shown.headers().firstValue("X-Tokens")).contains("12");
    assertThat(remaining("bea")).isEqualTo(CAPACITY - 12);
  }

  @Test
  void chargeOn_aStatusThatDoesNotCountRefundsEverything_evenAnErrorsAnswer() throws Exception {
    assertThat(get("/paid/fail?tokens=40", "cid").statusCode()).isEqualTo(503);
    assertThat(get("/paid/answer?tokens=40&status=502", "cid").headers().firstValue("X-Tokens")).isEmpty();
    assertThat(remaining("cid")).isEqualTo(CAPACITY);
    get("/paid/answer?tokens=40", "cid");
    assertThat(remaining("cid")).isEqualTo(CAPACITY - 40);
  }

  @Test
  void valuesThatAreNoCost_keepTheEstimate_neverAnError() throws Exception {
    List<String> queries = List.of("", "tokens=-1", "tokens=NaN", "tokens=1e309", "tokens=abc", "tokens=1&tokens=2",
        "tokens=%2B5", "tokens=" + "9".repeat(2000));
    for (String query : queries) {
      HttpResponse<String> response = get("/llm/answer?" + query, "dan");
      assertThat(response.statusCode()).as(query).isEqualTo(200);
      assertThat(response.headers().firstValue("X-Tokens")).as(query).isEmpty();
    }
    assertThat(remaining("dan")).isEqualTo(CAPACITY - 100.0 * queries.size());
  }

  @Test
  void concurrentClients_endAtExactlyCapacityMinusTheStatedCosts() throws Exception {
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    Random random = new Random();
    long stated = 0;
    List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      int tokens = random.nextInt(300);
      stated += tokens;
      String path = switch (i % 3) {
        case 0 -> "/llm/answer";
        case 1 -> "/llm/stream";
        default -> "/llm/later";
      };
      responses.add(client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path + "?tokens="
          + tokens)).header("X-User", "eve").timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofString()));
    }
    for (CompletableFuture<HttpResponse<String>> response : responses) {
      assertThat(response.get().statusCode()).isEqualTo(200);
    }
    assertThat(remaining("eve")).isEqualTo(CAPACITY - stated);
  }
}

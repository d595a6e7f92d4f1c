package dev.ratelimit.spring.ai.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.Concurrently;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.spring.ai.RateLimitAdvisor;
import dev.ratelimit.spring.ai.ScriptedChatModel;
import dev.ratelimit.http.builder.MissingKey;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;

/**
 * A WebFlux application on Reactor Netty with Spring Security, Actuator and Spring AI's
 * auto-configured {@code ChatClient.Builder}, streaming answers as server-sent events: what a
 * client and an operator see of streams that complete, are cut short, fail or carry no usage.
 * The user comes from the reactive security context (no thread holds it). Time stands still.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = StreamingChatHttpTest.App.class,
    properties = {
        "spring.main.web-application-type=reactive",
        "ratelimit.limits.llm-tokens=token-bucket rate=1000 period=1h",
        "ratelimit.ai.limit=llm-tokens",
        "management.endpoints.web.exposure.include=health,ratelimits"})
class StreamingChatHttpTest {
  private static final Pattern REMAINING = Pattern.compile("\"remaining\":(-?[0-9.E]+)");
  private static final String PROMPT = "hello world!"; // an estimate of 3 tokens

  private final HttpClient client = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @Autowired
  ScriptedChatModel model;

  @Autowired
  RateLimiter limiter;

  @SpringBootApplication
  static class App {
    @Bean
    ManualClock clock() {
      return new ManualClock(1_767_225_600_000L);
    }

    @Bean
    ScriptedChatModel chatModel() {
      return new ScriptedChatModel();
    }

    @Bean
    SecurityWebFilterChain security(ServerHttpSecurity http) {
      return http.csrf(csrf -> csrf.disable())
          .authorizeExchange(exchanges -> exchanges
              .pathMatchers("/open/**").permitAll()
              .pathMatchers("/actuator/**").hasRole("ADMIN")
              .anyExchange().authenticated())
          .httpBasic(Customizer.withDefaults())
          .build();
    }

    @Bean
    MapReactiveUserDetailsService users() {
      return new MapReactiveUserDetailsService(
          User.withUsername("gina").password("{noop}gina-pw").roles("USER").build(),
          User.withUsername("hank").password("{noop}hank-pw").roles("USER").build(),
          User.withUsername("admin").password("{noop}admin-pw").roles("ADMIN").build());
    }

    @RestController
    static class Chat {
      private final ChatClient chat;
      /** A client of the application's own, whose advisor refuses calls without a user. */
      private final ChatClient strict;

      Chat(ChatClient.Builder builder, ScriptedChatModel model, RateLimiter limiter) {
        this.chat = builder.build();
        this.strict = ChatClient.builder(model).defaultAdvisors(RateLimitAdvisor.builder(limiter, "llm-tokens")
            .missingKey(MissingKey.DENY).build()).build();
      }

      @PostMapping(path = "/open/strict-stream", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
      Flux<String> strict(@RequestBody String prompt) {
        return strict.prompt().user(prompt).stream().content();
      }

      @PostMapping(path = {"/stream", "/open/stream"}, produces = MediaType.TEXT_EVENT_STREAM_VALUE)
      Flux<String> stream(@RequestBody String prompt) {
        return chat.prompt().user(prompt).stream().content();
      }
    }
  }

  @BeforeEach
  void fresh() {
    model.reset();
    for (String key : List.of("gina", "hank", "")) {
      limiter.named("llm-tokens").reset(key);
    }
  }

  private HttpRequest stream(String user, String prompt) {
    return authenticated(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/stream"))
        .header("Content-Type", "text/plain")
        .POST(HttpRequest.BodyPublishers.ofString(prompt)), user).build();
  }

  private static HttpRequest.Builder authenticated(HttpRequest.Builder request, String user) {
    return request.header("Authorization", "Basic " + Base64.getEncoder()
        .encodeToString((user + ":" + user + "-pw").getBytes(StandardCharsets.UTF_8)));
  }

  private double remaining(String user) throws Exception {
    HttpResponse<String> state = client.send(authenticated(HttpRequest.newBuilder(
        URI.create("http://localhost:" + port + "/actuator/ratelimits/llm-tokens/" + user)), "admin").build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(state.statusCode()).isEqualTo(200);
    Matcher remaining = REMAINING.matcher(state.body());
    assertThat(remaining.find()).as(state.body()).isTrue();
    return Double.parseDouble(remaining.group(1));
  }

  @Test
  void stream_settlesAtCompletion_withTheLastChunksUsage() throws Exception {
    model.usageOnEveryChunk();

    HttpResponse<String> answer = client.send(stream("gina", PROMPT), HttpResponse.BodyHandlers.ofString());

    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.body()).isEqualTo("data:Hel\n\ndata:lo\n\ndata:!\n\n");
    assertThat(remaining("gina")).isEqualTo(1000 - 37);
    assertThat(remaining("hank")).isEqualTo(1000);
  }

  @Test
  void stream_cutShortByTheClient_keepsTheEstimate() throws Exception {
    model.streams(List.of("a", "b"), ScriptedChatModel.End.HANG).usageOnEveryChunk(); // "a" reports 18 so far

    HttpResponse<Stream<String>> answer = client.send(stream("gina", PROMPT), HttpResponse.BodyHandlers.ofLines());
    try (Stream<String> lines = answer.body()) {
      Iterator<String> line = lines.iterator();
      assertThat(line.next()).isEqualTo("data:a");
    } // closing the body before its end drops the connection

    assertThat(model.cancelled().await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(remaining("gina")).isEqualTo(1000 - 3);
  }

  @Test
  void stream_failingMidway_keepsTheEstimate() throws Exception {
    model.streams(List.of("a", "b"), ScriptedChatModel.End.FAIL).usageOnEveryChunk();

    assertThatThrownBy(() -> client.send(stream("gina", PROMPT), HttpResponse.BodyHandlers.ofString()).body())
        .isInstanceOf(IOException.class); // the server ends the connection mid-answer

    assertThat(remaining("gina")).isEqualTo(1000 - 3);
  }

  @Test
  void stream_withoutUsage_keepsTheEstimate() throws Exception {
    model.reports(null);

    assertThat(client.send(stream("gina", PROMPT), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    assertThat(remaining("gina")).isEqualTo(1000 - 3);
  }

  @Test
  void stream_whenTheBudgetIsSpent_is429WithHeaders_andTheModelNeverStreams() throws Exception {
    model.reports(ScriptedChatModel.usage(1000));
    assertThat(client.send(stream("gina", PROMPT), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);

    HttpResponse<String> denied = client.send(stream("gina", PROMPT), HttpResponse.BodyHandlers.ofString());

    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.headers().firstValue("Retry-After")).contains("11");
    assertThat(denied.headers().firstValue("X-RateLimit-Remaining")).contains("0");
    assertThat(denied.body()).contains("\"limit\":\"llm-tokens\"");
    assertThat(model.streams()).isEqualTo(1);
  }

  @Test
  void stream_byNobody_sharesTheGlobalKey() throws Exception {
    HttpResponse<String> answer = client.send(HttpRequest.newBuilder(
        URI.create("http://localhost:" + port + "/open/stream")).header("Content-Type", "text/plain")
        .POST(HttpRequest.BodyPublishers.ofString(PROMPT)).build(), HttpResponse.BodyHandlers.ofString());

    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(limiter.named("llm-tokens").check("", 0).remaining()).isEqualTo(1000 - 37);
  }

  @Test
  void stream_byNobody_whereKeysAreRequired_is400_andTheModelNeverStreams() throws Exception {
    HttpResponse<String> refused = client.send(HttpRequest.newBuilder(
        URI.create("http://localhost:" + port + "/open/strict-stream")).header("Content-Type", "text/plain")
        .POST(HttpRequest.BodyPublishers.ofString(PROMPT)).build(), HttpResponse.BodyHandlers.ofString());

    assertThat(refused.statusCode()).isEqualTo(400);
    assertThat(model.streams()).isZero();
  }

  @Test
  void concurrentStreams_costExactlyTheReportedTotals() throws Exception {
    model.reports(ScriptedChatModel.usage(9));

    Concurrently.run(8, () -> {
      for (int i = 0; i < 8; i++) {
        assertThat(client.send(stream("hank", PROMPT), HttpResponse.BodyHandlers.ofString()).statusCode())
            .isEqualTo(200);
      }
      return null;
    });

    assertThat(remaining("hank")).isEqualTo(1000 - 64 * 9);
    assertThat(model.streams()).isEqualTo(64);
  }
}

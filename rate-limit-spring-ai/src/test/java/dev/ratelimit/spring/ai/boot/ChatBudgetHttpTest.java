package dev.ratelimit.spring.ai.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.Concurrently;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.spring.ai.RateLimitAdvisor;
import dev.ratelimit.spring.ai.ScriptedChatModel;
import dev.ratelimit.http.builder.MissingKey;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.metadata.DefaultUsage;
import org.springframework.ai.chat.prompt.ChatOptions;
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
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring MVC application on Tomcat with Spring Security (HTTP basic), Actuator, Spring AI's
 * auto-configured {@code ChatClient.Builder} over a scripted model, and nothing declared for the
 * advisor but {@code ratelimit.ai.limit}: what a client and an operator see over HTTP. Time stands
 * still, so nothing refills while a test runs.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = ChatBudgetHttpTest.App.class,
    properties = {
        "ratelimit.limits.llm-tokens=token-bucket rate=1000 period=1h",
        "ratelimit.ai.limit=llm-tokens",
        "management.endpoints.web.exposure.include=health,ratelimits"})
class ChatBudgetHttpTest {
  private static final Pattern REMAINING = Pattern.compile("\"remaining\":(-?[0-9.E]+)");
  private static final String PROMPT = "hello world!"; // 12 characters: an estimate of 3 tokens

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

    /** The model: what a provider's auto-configuration would make. */
    @Bean
    ScriptedChatModel chatModel() {
      return new ScriptedChatModel();
    }

    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
      return http.authorizeHttpRequests(requests -> requests
              .requestMatchers("/open/**", "/error").permitAll() // the error page renders the 400
              .requestMatchers("/actuator/**").hasRole("ADMIN")
              .anyRequest().authenticated())
          .httpBasic(Customizer.withDefaults())
          .csrf(csrf -> csrf.disable()) // an API for scripts, not a browser
          .build();
    }

    @Bean
    InMemoryUserDetailsManager users() {
      return new InMemoryUserDetailsManager(
          User.withUsername("ann").password("{noop}ann-pw").roles("USER").build(),
          User.withUsername("bob").password("{noop}bob-pw").roles("USER").build(),
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

      @PostMapping("/open/strict-chat")
      String strict(@RequestBody String prompt) {
        return strict.prompt().user(prompt).call().content();
      }

      /** The prompt is the body; {@code maxTokens} comes from the client, as an application might let it. */
      @PostMapping({"/chat", "/open/chat"})
      String chat(@RequestBody String prompt, @RequestParam(required = false) Integer maxTokens) {
        ChatClient.ChatClientRequestSpec request = chat.prompt().user(prompt);
        if (maxTokens != null) {
          request.options(ChatOptions.builder().maxTokens(maxTokens));
        }
        return request.call().content();
      }
    }
  }

  @BeforeEach
  void fresh() {
    model.reset();
    for (String key : List.of("ann", "bob", "")) {
      limiter.named("llm-tokens").reset(key);
    }
  }

  private HttpResponse<String> post(String path, String user, String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
        .header("Content-Type", "text/plain")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    return client.send(authenticated(request, user).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpRequest.Builder authenticated(HttpRequest.Builder request, String user) {
    return user == null ? request : request.header("Authorization", "Basic " + Base64.getEncoder()
        .encodeToString((user + ":" + user + "-pw").getBytes(StandardCharsets.UTF_8)));
  }

  /** What the operator sees of a user's budget: {@code GET /actuator/ratelimits/llm-tokens/{user}}. */
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
  void chat_costsTheUserExactlyTheTokensTheModelReported() throws Exception {
    HttpResponse<String> answer = post("/chat", "ann", PROMPT);

    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.body()).isEqualTo("echo: 12 characters");
    assertThat(remaining("ann")).isEqualTo(1000 - 37);
    assertThat(remaining("bob")).isEqualTo(1000);
  }

  @Test
  void chat_whenTheBudgetIsSpent_is429WithHeaders_andTheModelIsNotCalled() throws Exception {
    model.reports(ScriptedChatModel.usage(1000));
    assertThat(post("/chat", "ann", PROMPT).statusCode()).isEqualTo(200);

    HttpResponse<String> denied = post("/chat", "ann", PROMPT);

    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.headers().firstValue("Retry-After")).contains("11"); // 3 tokens at 1000 an hour: 10.8 s
    assertThat(denied.headers().firstValue("X-RateLimit-Remaining")).contains("0");
    assertThat(denied.headers().firstValue("Content-Type")).contains("application/problem+json");
    assertThat(denied.body()).contains("\"limit\":\"llm-tokens\"", "\"retryAfter\":11");
    assertThat(model.calls()).isEqualTo(1);
    assertThat(post("/chat", "bob", PROMPT).statusCode()).isEqualTo(200); // bob's own budget
  }

  @Test
  void chat_costingMoreThanItsEstimate_leavesTheUserInDebt() throws Exception {
    model.reports(ScriptedChatModel.usage(1500));
    post("/chat", "ann", PROMPT);

    assertThat(remaining("ann")).isEqualTo(-500);
    assertThat(post("/chat", "ann", PROMPT).statusCode()).isEqualTo(429);
  }

  @Test
  void chat_hostileUsage_hugeIsBoundedByTheDebtBound_negativeAndAbsentKeepTheEstimate() throws Exception {
    model.reports(new DefaultUsage(0, Integer.MAX_VALUE, Integer.MAX_VALUE));
    post("/chat", "ann", PROMPT);
    assertThat(remaining("ann")).isEqualTo(-1000);

    model.reports(new DefaultUsage(1, 1, -1_000_000));
    post("/chat", "bob", PROMPT);
    assertThat(remaining("bob")).isEqualTo(1000 - 3);

    model.reports(null);
    post("/chat", "bob", PROMPT);
    assertThat(remaining("bob")).isEqualTo(1000 - 6);
  }

  @Test
  void chat_withAPromptOfMegabytes_is400NamingTheLimit_andTheModelIsNotCalled() throws Exception {
    HttpResponse<String> refused = post("/chat", "ann", "x".repeat(4 << 20));

    assertThat(refused.statusCode()).isEqualTo(400);
    assertThat(refused.headers().firstValue("Content-Type")).contains("application/problem+json");
    assertThat(refused.body()).contains(
        "\"detail\":\"Count 1048576 for rate limit 'llm-tokens' must be a finite number from 0 to 1000\"",
        "\"limit\":\"llm-tokens\"", "\"count\":1048576", "\"maxCount\":1000");
    assertThat(model.calls()).isZero();
    assertThat(remaining("ann")).isEqualTo(1000);
  }

  @Test
  void chat_withAHugeMaxTokensFromTheClient_is400_andANegativeOneAddsNothing() throws Exception {
    assertThat(post("/chat?maxTokens=" + Integer.MAX_VALUE, "ann", PROMPT).statusCode()).isEqualTo(400);
    assertThat(model.calls()).isZero();

    model.reports(null);
    assertThat(post("/chat?maxTokens=-5000", "ann", PROMPT).statusCode()).isEqualTo(200);
    assertThat(remaining("ann")).isEqualTo(1000 - 3);
  }

  @Test
  void chat_byNobody_sharesTheLimitsGlobalKey() throws Exception {
    assertThat(post("/open/chat", null, PROMPT).statusCode()).isEqualTo(200);

    assertThat(limiter.named("llm-tokens").check("", 0).remaining()).isEqualTo(1000 - 37); // no path names the empty key
    assertThat(remaining("ann")).isEqualTo(1000);
  }

  @Test
  void chat_byNobody_whereKeysAreRequired_is400_andTheModelIsNotCalled() throws Exception {
    assertThat(post("/open/strict-chat", null, PROMPT).statusCode()).isEqualTo(400);
    assertThat(model.calls()).isZero();
    assertThat(post("/open/strict-chat", "ann", PROMPT).statusCode()).as("with a user").isEqualTo(200);
  }

  @Test
  void concurrentChats_costExactlyTheReportedTotals() throws Exception {
    model.reports(ScriptedChatModel.usage(7));

    Concurrently.run(8, () -> {
      for (int i = 0; i < 10; i++) {
        assertThat(post("/chat", "ann", PROMPT).statusCode()).isEqualTo(200);
      }
      return null;
    });

    assertThat(remaining("ann")).isEqualTo(1000 - 80 * 7);
    assertThat(model.calls()).isEqualTo(80);
  }

  @Test
  void concurrentChats_onASpentBudget_admitExactlyWhatItHolds_andTheModelSeesNoMore() throws Exception {
    model.reports(ScriptedChatModel.usage(10));
    String prompt = "x".repeat(40); // an estimate of 10: as much as the model reports
    AtomicInteger denied = new AtomicInteger();

    Concurrently.run(16, () -> {
      for (int i = 0; i < 10; i++) {
        int status = post("/chat", "ann", prompt).statusCode();
        assertThat(status).isIn(200, 429);
        if (status == 429) {
          denied.incrementAndGet();
        }
      }
      return null;
    });

    assertThat(model.calls()).isEqualTo(100);
    assertThat(denied).hasValue(60);
    assertThat(remaining("ann")).isZero();
  }
}

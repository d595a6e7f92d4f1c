package dev.ratelimit.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The demo as a client sees it, on a random port. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ExampleApplicationTest {
  private final HttpClient client = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  private HttpResponse<String> send(String method, String path, String user) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
        .method(method, HttpRequest.BodyPublishers.noBody());
    if (user != null) {
      request.header("X-User", user);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
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
  void messages_areLimitedPerUserWithHeadersOnEveryAnswer() throws Exception {
    for (int left = 2; left >= 0; left--) {
      HttpResponse<String> sent = send("POST", "/messages?text=hi", "ann");
      assertThat(sent.body()).contains("ann sent: hi");
      assertThat(sent.headers().firstValue("X-RateLimit-Remaining")).contains(Integer.toString(left));
    }
    HttpResponse<String> denied = send("POST", "/messages?text=hi", "ann");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.body()).contains("\"limit\":\"send-message\"");
    assertThat(send("POST", "/messages?text=hi", "bob").statusCode()).isEqualTo(200);
  }

  @Test
  void completions_costTheEstimatedTokens() throws Exception {
    String prompt = "x".repeat(400);
    assertThat(send("POST", "/completions?maxTokens=500&prompt=" + prompt, "cy").statusCode()).isEqualTo(200);
    HttpResponse<String> over = send("POST", "/completions?maxTokens=500&prompt=" + prompt, "cy");
    assertThat(over.statusCode()).isEqualTo(429);
    assertThat(over.body()).contains("\"limit\":\"llm-tokens\"");
  }

  @Test
  void login_locksAfterFiveFailures_andASuccessResetsTheCount() throws Exception {
    for (int i = 0; i < 4; i++) {
      assertThat(send("POST", "/login?user=ann&password=wrong", null).statusCode()).isEqualTo(401);
    }
    assertThat(send("POST", "/login?user=ann&password=secret", null).statusCode()).as("success resets").isEqualTo(200);
    for (int i = 0; i < 5; i++) {
      assertThat(send("POST", "/login?user=ann&password=wrong", null).statusCode()).isEqualTo(401);
    }
    assertThat(send("POST", "/login?user=ann&password=secret", null).statusCode()).as("locked").isEqualTo(429);
  }

  @Test
  void endpoint_listsTheLimits() throws Exception {
    assertThat(send("GET", "/actuator/ratelimits", null).body()).contains("\"exports\":{\"spec\":\"gcra rate=1 period=2s\"");
  }
}

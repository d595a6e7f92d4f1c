package dev.ratelimit.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.example.launcher.Launcher;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The example as a user starts it: the built WAR on the launcher, on a free port. */
class ServletWebappIT {
  private static Server server;
  private static String url;
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @BeforeAll
  static void start() throws Exception {
    server = Launcher.start("127.0.0.1", 0, Launcher.war());
    url = Launcher.url(server);
  }

  @AfterAll
  static void stop() throws Exception {
    server.stop();
  }

  private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void api_admitsFiveThenAnswers429() throws Exception {
    for (int remaining = 4; remaining >= 0; remaining--) {
      HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(url + "api/hello")));
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).isEqualTo("Hello, 127.0.0.1!\n");
      assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue(Integer.toString(remaining));
      assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"api\";q=5;w=60");
    }
    HttpResponse<String> denied = send(HttpRequest.newBuilder(URI.create(url + "api/hello")));
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.headers().firstValue("Retry-After")).hasValue("12");
    assertThat(denied.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(denied.body()).contains("\"status\":429", "\"limit\":\"api\"", "\"retryAfter\":12");
  }

  @Test
  void login_isLimitedPerUserAndNeedsOne() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertThat(login("user=alice").statusCode()).isEqualTo(200);
    }
    assertThat(login("user=alice").statusCode()).isEqualTo(429);
    assertThat(login("user=+ALICE").statusCode()).as("the same user, capitalised and padded").isEqualTo(429);
    HttpResponse<String> bob = login("user=bob");
    assertThat(bob.statusCode()).isEqualTo(200);
    assertThat(bob.body()).isEqualTo("Welcome, bob.\n");
    assertThat(login("").statusCode()).isEqualTo(400);
  }

  @Test
  void indexIsNotLimited() throws Exception {
    HttpResponse<String> index = send(HttpRequest.newBuilder(URI.create(url)));
    assertThat(index.statusCode()).isEqualTo(200);
    assertThat(index.headers().firstValue("X-RateLimit-Limit")).isEmpty();
  }

  private HttpResponse<String> login(String form) throws Exception {
    return send(HttpRequest.newBuilder(URI.create(url + "login"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form)));
  }
}

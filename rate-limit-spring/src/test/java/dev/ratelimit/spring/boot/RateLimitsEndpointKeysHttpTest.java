package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET} and {@code DELETE /actuator/ratelimits/{limit}?key=...} reach the bucket the filter
 * charged, for every kind of key: an IPv4 client, an IPv6 client's /64 (which no path segment
 * holds), a header value with spaces, {@code %} and Latin-1, a parameter in any script, a key
 * the limiter hashes; and a hostile {@code key} is a 4xx or a plain lookup, never a 500. A real
 * Boot app (Tomcat, random port) whose operator granted the endpoint's writes.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = RateLimitsEndpointKeysHttpTest.App.class,
    properties = {
        "ratelimit.limits.by-ip=fixed-window rate=2 period=1h",
        "ratelimit.limits.by-header=fixed-window rate=2 period=1h",
        "ratelimit.limits.by-param=fixed-window rate=2 period=1h",
        "ratelimit.filter.rules[0].path=/ip/**", "ratelimit.filter.rules[0].limit=by-ip",
        "ratelimit.filter.rules[1].path=/header/**", "ratelimit.filter.rules[1].limit=by-header",
        "ratelimit.filter.rules[1].key=header:X-Api-Key",
        "ratelimit.filter.rules[2].path=/param/**", "ratelimit.filter.rules[2].limit=by-param",
        "ratelimit.filter.rules[2].key=param:user",
        // the test client is the proxy: its X-Forwarded-For names the client
        "ratelimit.trusted-proxies=127.0.0.1",
        "management.endpoints.web.exposure.include=ratelimits",
        "management.endpoint.ratelimits.access=unrestricted"})
class RateLimitsEndpointKeysHttpTest {
  private final HttpClient client = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @AppWithoutSecurity
  static class App {
    /** Time stands still: only a reset refills a bucket. */
    @Bean
    ManualClock clock() {
      return new ManualClock(1_767_225_600_000L);
    }

    @RestController
    static class Endpoints {
      @GetMapping({"/ip/data", "/header/data", "/param/data"})
      String data() {
        return "data";
      }
    }
  }

  @Test
  void ipv4Client_isReadAndResetByQuery_andByPath() throws Exception {
    spendAll("/ip/data", "X-Forwarded-For", "198.51.100.7");
    assertReadAndReset("by-ip", "198.51.100.7", "/ip/data", "X-Forwarded-For", "198.51.100.7");
    assertThat(send("GET", "/ip/data", "X-Forwarded-For", "198.51.100.7").statusCode()).isEqualTo(200);
    assertThat(send("GET", "/ip/data", "X-Forwarded-For", "198.51.100.7").statusCode()).isEqualTo(429);
    assertThat(send("GET", "/actuator/ratelimits/by-ip/198.51.100.7").body()).contains("\"remaining\":0.0");
    assertThat(send("DELETE", "/actuator/ratelimits/by-ip/198.51.100.7").statusCode()).isEqualTo(204);
    assertThat(send("GET", "/ip/data", "X-Forwarded-For", "198.51.100.7").statusCode()).isEqualTo(200);
  }

  @Test
  void ipv6Client_itsSlash64_isReadAndResetByQuery_whereNoPathSegmentHoldsIt() throws Exception {
    spendAll("/ip/data", "X-Forwarded-For", "2001:db8:1:2::17");
    // another address of the same /64 is the same client
    assertThat(send("GET", "/ip/data", "X-Forwarded-For", "2001:db8:1:2:ffff::1").statusCode()).isEqualTo(429);
    assertReadAndReset("by-ip", "2001:db8:1:2::/64", "/ip/data", "X-Forwarded-For", "2001:db8:1:2::17");
    // the path form cannot hold the '/': refused by the server, never a 500, never another key
    int encodedSlash = send("DELETE", "/actuator/ratelimits/by-ip/2001:db8:1:2::%2F64").statusCode();
    assertThat(encodedSlash).isBetween(400, 499);
  }

  @Test
  void headerValueWithSpacesPercentAndLatin1_isReadAndResetByQuery() throws Exception {
    // a header carries ISO-8859-1 (RFC 9110 obs-text), which the server reads as such: ü is one byte, 0xFC
    String request = "GET /header/data HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: acme corp %41 100% \u00fc\r\n"
        + "Connection: close\r\n\r\n";
    assertThat(raw(request)).startsWith("HTTP/1.1 200");
    assertThat(raw(request)).startsWith("HTTP/1.1 200");
    assertThat(raw(request)).startsWith("HTTP/1.1 429");
    String key = "acme corp %41 100% \u00fc";
    String byQuery = "/actuator/ratelimits/by-header?key=" + encoded(key);
    assertThat(send("GET", byQuery).body()).contains("\"remaining\":0.0");
    assertThat(send("DELETE", byQuery).statusCode()).isEqualTo(204);
    assertThat(raw(request)).as("the filter's bucket was the one reset").startsWith("HTTP/1.1 200");
  }

  @Test
  void parameterInAnyScript_withPlusSlashAndOuterSpaces_isReadAndResetByQuery_asItIs() throws Exception {
    String key = " 日本 user+1/эл@почта 🚀 ";
    spendAll("/param/data?user=" + encoded(key));
    assertReadAndReset("by-param", key, "/param/data?user=" + encoded(key));
  }

  @Test
  void keyTheLimiterHashes_isTheBucketTheFilterCharged_byItselfOrByItsHash() throws Exception {
    String key = "k".repeat(300) + "-long";
    spendAll("/header/data", "X-Api-Key", key);
    assertReadAndReset("by-header", key, "/header/data", "X-Api-Key", key);
    assertThat(send("GET", "/header/data", "X-Api-Key", key).statusCode()).isEqualTo(200);
    String hashed = "sha256:" + HexFormat.of().formatHex(
        MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
    assertReadAndReset("by-header", hashed, "/header/data", "X-Api-Key", key);
  }

  @Test
  void hostileKeys_areA4xxOrAPlainLookup_never500() throws Exception {
    assertThat(send("GET", "/actuator/ratelimits/by-header").statusCode()).as("no key").isEqualTo(400);
    assertThat(send("DELETE", "/actuator/ratelimits/by-header").statusCode()).as("no key").isEqualTo(400);
    assertThat(send("GET", "/actuator/ratelimits/no-such-limit?key=a").statusCode()).isEqualTo(404);
    assertThat(send("DELETE", "/actuator/ratelimits/no-such-limit?key=a").statusCode()).isEqualTo(404);
    // what the server cannot decode it drops (Tomcat): no key, 400
    for (String query : new String[] {"key=%", "key=%G1", "key=%FF%FE"}) {
      assertStatus("GET", query, 400);
      assertStatus("DELETE", query, 400);
    }
    // past the server's limit on a request line (Tomcat: 8 KB): 400 before any code of the application runs
    assertStatus("GET", "key=" + "x".repeat(200_000), 400);
    assertStatus("DELETE", "key=" + "x".repeat(200_000), 400);
    // anything else decoded is a key, looked up as it is: NUL, CR LF, 7,000 bytes (hashed), a repeated
    // key (Boot joins the values: the key "a,b")
    for (String query : new String[] {"key=a%00b", "key=%0D%0Ainjected:%201", "key=" + "x".repeat(7000),
        "key=a&key=b"}) {
      assertStatus("GET", query, 200);
      assertStatus("DELETE", query, 204);
    }
    // a key that fits reads a fresh bucket: the lookup of what was sent, hashed past 256 bytes
    assertThat(send("GET", "/actuator/ratelimits/by-header?key=" + "x".repeat(7000)).body())
        .contains("\"remaining\":2.0");
    // the global key: requests without their key share it (missing-key global)
    spendAll("/header/data");
    assertReadAndReset("by-header", "", "/header/data");
  }

  /**
   * The answer to a request written byte for byte in ISO-8859-1, as any client may send it (no
   * URI checks, no header encoding): its status line, headers and body.
   */
  private String raw(String request) throws Exception {
    try (Socket socket = new Socket("localhost", port)) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(request.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private void assertStatus(String method, String query, int status) throws Exception {
    String answer = raw(method + " /actuator/ratelimits/by-header?" + query
        + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    assertThat(answer).as(method + " " + abbreviated(query)).startsWith("HTTP/1.1 " + status + " ")
        .doesNotContain("Exception");
  }

  /** Spends the key's two units through the filter; the third request is refused. */
  private void spendAll(String path, String... headers) throws Exception {
    assertThat(send("GET", path, headers).statusCode()).isEqualTo(200);
    assertThat(send("GET", path, headers).statusCode()).isEqualTo(200);
    assertThat(send("GET", path, headers).statusCode()).isEqualTo(429);
  }

  /** The endpoint reads the spent bucket by {@code ?key=}, resets it, and the filter admits the key again. */
  private void assertReadAndReset(String limit, String key, String path, String... headers) throws Exception {
    String byQuery = "/actuator/ratelimits/" + limit + "?key=" + encoded(key);
    HttpResponse<String> spent = send("GET", byQuery);
    assertThat(spent.statusCode()).isEqualTo(200);
    assertThat(spent.body()).contains("\"remaining\":0.0").contains("\"limit\":2.0");
    assertThat(send("DELETE", byQuery).statusCode()).isEqualTo(204);
    assertThat(send("GET", byQuery).body()).contains("\"remaining\":2.0");
    assertThat(send("GET", path, headers).statusCode()).as("the filter's bucket was the one reset").isEqualTo(200);
  }

  private static String encoded(String key) {
    return URLEncoder.encode(key, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static String abbreviated(String text) {
    return text.length() <= 40 ? text : text.substring(0, 40) + "... (" + text.length() + " characters)";
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

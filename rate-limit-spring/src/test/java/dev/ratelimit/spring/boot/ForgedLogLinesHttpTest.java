package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.spring.RateLimited;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A client trying to forge log lines through every value of its request that a log line shows,
 * in a real Boot app (Tomcat, random port, Boot's own logging): a plan from a filter rule's SpEL
 * and from an annotation, a shadow limit's key, a condition's SpEL result, a bad count. Each is
 * logged quoted and escaped, cut to its start: the log gets no line the client wrote, and no
 * line of megabytes (docs/design.md §10.1).
 */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = ForgedLogLinesHttpTest.App.class,
    properties = {
        "ratelimit.limits.search=fixed-window rate=100 period=1h",
        "ratelimit.plans.pro.search=fixed-window rate=400 period=1h",
        "ratelimit.limits.watch=fixed-window rate=1 period=1h mode=shadow",
        "ratelimit.limits.reports=fixed-window rate=100 period=1h",
        "ratelimit.limits.tokens=fixed-window rate=100 period=1h",
        "ratelimit.limits.exports=fixed-window rate=100 period=1h",
        "ratelimit.plans.pro.exports=fixed-window rate=400 period=1h",
        "ratelimit.filter.rules[0].path=/search", "ratelimit.filter.rules[0].limit=search",
        "ratelimit.filter.rules[0].plan=#{#request.getParameter('plan')}",
        "ratelimit.filter.rules[1].path=/watch", "ratelimit.filter.rules[1].limit=watch",
        "ratelimit.filter.rules[1].key=param:user",
        "ratelimit.filter.rules[2].path=/reports", "ratelimit.filter.rules[2].limit=reports",
        "ratelimit.filter.rules[2].condition=#{#request.getParameter('internal')}"})
class ForgedLogLinesHttpTest {
  /** What a client sends, percent-encoded in the query: a line break, then a line of its own. */
  private static final String FORGED = "x\n2026-01-01 WARN FORGED\r\u0085";
  private static final String ESCAPED = "x\\n2026-01-01 WARN FORGED\\r\\u0085";
  /** Longer than any log line should be, and than a value is shown. */
  private static final String LONG = FORGED + "y".repeat(6000);

  private final HttpClient client = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @AppWithoutSecurity
  static class App {
    @RestController
    static class Endpoints {
      @GetMapping({"/search", "/watch", "/reports"})
      String ok() {
        return "ok";
      }

      @GetMapping("/tokens")
      @RateLimited(name = "tokens", count = "#n")
      String tokens(@RequestParam String n) {
        return "ok";
      }

      @GetMapping("/exports")
      @RateLimited(name = "exports", plan = "#plan")
      String exports(@RequestParam String plan) {
        return "ok";
      }
    }
  }

  private int get(String path, String param, String value) throws Exception {
    String query = param + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8);
    HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path
        + "?" + query)).build(), HttpResponse.BodyHandlers.ofString());
    return response.statusCode();
  }

  /** No line the client wrote, and no line of the log longer than a few quoted values. */
  private static void assertNoForgedLine(CapturedOutput output) {
    assertThat(output.toString()).doesNotContain("\n2026-01-01 WARN FORGED", "\r2026", "\u0085");
    assertThat(Arrays.stream(output.toString().split("\n")).filter(line -> line.contains("FORGED")))
        .isNotEmpty().allSatisfy(line -> assertThat(line).hasSizeLessThan(1500));
  }

  @Test
  void planFromARuleExpression_isLoggedEscapedAndCut(CapturedOutput output) throws Exception {
    assertThat(get("/search", "plan", LONG)).isEqualTo(200);
    assertThat(output).contains("limit 'search' has no plan \"" + ESCAPED + "yyy", "more chars)");
    assertNoForgedLine(output);
  }

  @Test
  void planFromAnAnnotation_isLoggedEscapedAndCut(CapturedOutput output) throws Exception {
    assertThat(get("/exports", "plan", LONG)).isEqualTo(200);
    assertThat(output).contains("limit 'exports' has no plan \"" + ESCAPED + "yyy", "more chars)");
    assertNoForgedLine(output);
  }

  @Test
  void shadowLimitsKey_isLoggedEscaped(CapturedOutput output) throws Exception {
    // a key this short is kept as it is (a long one becomes its digest before any store or log sees it)
    assertThat(get("/watch", "user", FORGED)).isEqualTo(200);
    assertThat(get("/watch", "user", FORGED)).as("a shadow limit never denies").isEqualTo(200);
    assertThat(output).contains("shadow limit 'watch' would have denied key \"" + ESCAPED + "\"");
    assertNoForgedLine(output);
  }

  @Test
  void conditionGivingTheClientsText_isLoggedEscapedAndCut(CapturedOutput output) throws Exception {
    assertThat(get("/reports", "internal", LONG)).as("a condition that is not a boolean holds").isEqualTo(200);
    assertThat(output).contains("ratelimit.filter.rules[2].condition=#{#request.getParameter('internal')} failed on a "
        + "request (\"the value is " + ESCAPED);
    assertNoForgedLine(output);
  }

  @Test
  void badCount_isA400_loggedWithTheValueEscapedAndCut(CapturedOutput output) throws Exception {
    assertThat(get("/tokens", "n", LONG)).isEqualTo(400);
    assertThat(output).contains("count = \"#n\")", "gave \"" + ESCAPED + "yyy", "more chars)");
    assertNoForgedLine(output);
  }
}

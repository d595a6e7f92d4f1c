package dev.ratelimit.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * A client trying to forge log lines in a reactive Boot app (Reactor Netty, random port, Boot's
 * own logging) through a SpEL key whose failure message carries its text, and a plan from SpEL:
 * logged quoted and escaped, cut to their start (docs/design.md §10.1).
 */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = WebFluxForgedLogLinesIT.App.class,
    properties = {
        "ratelimit.limits.orders=fixed-window rate=100 period=1h",
        "ratelimit.limits.search=fixed-window rate=100 period=1h",
        "ratelimit.plans.pro.search=fixed-window rate=400 period=1h",
        "ratelimit.filter.rules[0].path=/orders", "ratelimit.filter.rules[0].limit=orders",
        "ratelimit.filter.rules[0].key=#{T(java.lang.Integer).parseInt(#request.queryParams.getFirst('n'))}",
        "ratelimit.filter.rules[1].path=/search", "ratelimit.filter.rules[1].limit=search",
        "ratelimit.filter.rules[1].plan=#{#request.queryParams.getFirst('plan')}"})
class WebFluxForgedLogLinesIT {
  private static final String FORGED = "x\n2026-01-01 WARN FORGED\r\u0085";
  private static final String ESCAPED = "x\\n2026-01-01 WARN FORGED\\r\\u0085";
  private static final String LONG = FORGED + "y".repeat(3000);

  @LocalServerPort
  int port;

  @SpringBootApplication
  static class App {
    @Bean
    SecurityWebFilterChain security(ServerHttpSecurity http) {
      return http.csrf(csrf -> csrf.disable()).authorizeExchange(exchanges -> exchanges.anyExchange().permitAll())
          .build();
    }

    @RestController
    static class Endpoints {
      @GetMapping({"/orders", "/search"})
      Mono<String> ok() {
        return Mono.just("ok");
      }
    }
  }

  private int get(String path, String param, String value) throws Exception {
    return new Http(port).get(path + "?" + param + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8)).statusCode();
  }

  private static void assertNoForgedLine(CapturedOutput output) {
    assertThat(output.toString()).doesNotContain("\n2026-01-01 WARN FORGED", "\r2026", "\u0085");
    assertThat(Arrays.stream(output.toString().split("\n")).filter(line -> line.contains("FORGED")))
        .isNotEmpty().allSatisfy(line -> assertThat(line).hasSizeLessThan(1500));
  }

  @Test
  void spelKeyFailingOnTheClientsText_isAMissingKey_loggedEscapedAndCut(CapturedOutput output) throws Exception {
    assertThat(get("/orders", "n", LONG)).as("a missing key: the shared global bucket").isEqualTo(200);
    assertThat(output).contains("failed on a request (\"", "For input string: \\\"" + ESCAPED + "yyy", "more chars)");
    assertNoForgedLine(output);
  }

  @Test
  void planFromSpel_isLoggedEscapedAndCut(CapturedOutput output) throws Exception {
    assertThat(get("/search", "plan", LONG)).isEqualTo(200);
    assertThat(output).contains("limit 'search' has no plan \"" + ESCAPED + "yyy", "more chars)");
    assertNoForgedLine(output);
  }
}

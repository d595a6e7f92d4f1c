package dev.ratelimit.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.SwitchableStore;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.InMemoryStore;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * {@code cost-header} in the WebFlux filter (docs/design.md §6.1, §6.8): charged the rule's cost
 * up front, settled with the cost the response states when it is committed, the header taken out
 * before any is written unless passed; an exchange cancelled before the commit keeps the
 * estimate once its handler started, and is refunded before. The remaining units are read with
 * {@code check}, which charges nothing.
 */
class RateLimitWebFilterCostHeaderTest {
  private final ManualClock clock = new ManualClock(1_700_000_000_000L);
  private final RateLimiter limiter = RateLimiter.builder().clock(clock)
      .limit("tokens", "fixed-window rate=1000 period=1h").build();
  private final RateLimitWebFilter filter = RateLimitWebFilter.builder().limiter(limiter)
      .rule("/llm/**", "tokens", "header:X-User", 100).costHeader("X-Tokens")
      .rule("/shown/**", "tokens", "header:X-User", 100).costHeader("X-Tokens").passCostHeader()
      .rule("/paid/**", "tokens", "header:X-User", 100).costHeader("X-Tokens").chargeOn("2xx")
      .build();

  private double remaining(String user) {
    return limiter.named("tokens").check(user, 0).remaining();
  }

  private static MockServerWebExchange exchange(String path, String user) {
    return MockServerWebExchange.from(MockServerHttpRequest.get(path).header("X-User", user));
  }

  /** A handler stating {@code values} in X-Tokens and committing the response with {@code status}. */
  private static WebFilterChain stating(HttpStatus status, String... values) {
    return exchange -> {
      exchange.getResponse().setStatusCode(status);
      for (String value : values) {
        exchange.getResponse().getHeaders().add("X-Tokens", value);
      }
      return exchange.getResponse().setComplete();
    };
  }

  private MockServerWebExchange run(String path, String user, WebFilterChain chain) {
    MockServerWebExchange exchange = exchange(path, user);
    filter.filter(exchange, chain).block(Duration.ofSeconds(5));
    return exchange;
  }

  @Test
  void statedCost_settlesTheCharge_andIsTakenOutOfTheResponse() {
    MockServerWebExchange less = run("/llm/x", "ann", stating(HttpStatus.OK, "30"));
    assertThat(less.getResponse().getHeaders().containsHeader("X-Tokens")).isFalse();
    assertThat(less.getResponse().getHeaders().getFirst("X-RateLimit-Remaining")).as("the estimate, up front")
        .isEqualTo("900");
    assertThat(remaining("ann")).isEqualTo(970);
    run("/llm/x", "ann", stating(HttpStatus.OK, "1200"));
    assertThat(remaining("ann")).as("more than was left: into debt").isEqualTo(-230);
  }

  @Test
  void passCostHeader_leavesItInTheResponse() {
    MockServerWebExchange shown = run("/shown/x", "bea", stating(HttpStatus.OK, "12"));
    assertThat(shown.getResponse().getHeaders().getFirst("X-Tokens")).isEqualTo("12");
    assertThat(remaining("bea")).isEqualTo(988);
  }

  @Test
  void chargeOn_aStatusThatDoesNotCount_refundsEverything_andTheHeaderIsStillTakenOut() {
    MockServerWebExchange failed = run("/paid/x", "cid", stating(HttpStatus.BAD_GATEWAY, "40"));
    assertThat(failed.getResponse().getHeaders().containsHeader("X-Tokens")).isFalse();
    assertThat(remaining("cid")).isEqualTo(1000);
    run("/paid/x", "cid", stating(HttpStatus.OK, "40"));
    assertThat(remaining("cid")).isEqualTo(960);
  }

  @Test
  void noCostStated_orNoneUsable_keepsTheEstimate() {
    run("/llm/x", "dan", stating(HttpStatus.OK));
    run("/llm/x", "dan", stating(HttpStatus.OK, "-5"));
    run("/llm/x", "dan", stating(HttpStatus.OK, "1e309"));
    run("/llm/x", "dan", stating(HttpStatus.OK, "3", "4"));
    run("/llm/x", "dan", stating(HttpStatus.OK, "9".repeat(100_000)));
    assertThat(remaining("dan")).isEqualTo(500);
  }

  @Test
  void cancelledAfterTheHandlerStarted_beforeTheCommit_keepsTheEstimate() {
    Sinks.Empty<Void> never = Sinks.empty();
    MockServerWebExchange exchange = exchange("/llm/x", "eve");
    filter.filter(exchange, e -> {
      e.getResponse().getHeaders().add("X-Tokens", "5");
      return never.asMono();
    }).subscribe().dispose();
    assertThat(remaining("eve")).as("the work ran; its cost never reached a commit").isEqualTo(900);
    exchange.getResponse().setComplete().block(Duration.ofSeconds(5));
    assertThat(remaining("eve")).as("settled once").isEqualTo(900);
  }

  @Test
  void cancelledWhileTheLimitIsDecided_isRefunded_andTheHandlerNeverRuns() {
    SwitchableStore store = new SwitchableStore(new InMemoryStore(clock));
    RateLimiter later = RateLimiter.builder().clock(clock).store(store).limit("tokens", "fixed-window rate=1000 period=1h")
        .build();
    RateLimitWebFilter slow = RateLimitWebFilter.builder().limiter(later)
        .rule("/llm/**", "tokens", "header:X-User", 100).costHeader("X-Tokens").build();
    AtomicInteger ran = new AtomicInteger();
    store.holdAnswers();
    slow.filter(exchange("/llm/x", "fay"), e -> {
      ran.incrementAndGet();
      return stating(HttpStatus.OK, "1").filter(e);
    }).subscribe().dispose();
    store.releaseAnswers();
    assertThat(ran).hasValue(0);
    assertThat(later.named("tokens").check("fay", 0).remaining()).isEqualTo(1000);
  }

  @Test
  void handlerError_settlesByTheErrorAnswersStatus_withTheCostStatedBeforeIt() {
    MockServerWebExchange exchange = exchange("/llm/x", "gus");
    filter.filter(exchange, e -> {
      e.getResponse().getHeaders().add("X-Tokens", "7");
      return Mono.error(new IllegalStateException("boom"));
    }).onErrorResume(e -> {
      exchange.getResponse().setStatusCode(HttpStatus.INTERNAL_SERVER_ERROR);
      return exchange.getResponse().setComplete();
    }).block(Duration.ofSeconds(5));
    assertThat(exchange.getResponse().getHeaders().containsHeader("X-Tokens")).isFalse();
    assertThat(remaining("gus")).isEqualTo(993);
  }
}

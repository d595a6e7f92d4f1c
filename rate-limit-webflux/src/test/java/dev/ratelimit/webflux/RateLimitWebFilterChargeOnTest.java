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
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * {@code charge-on} in the WebFlux filter: settled by the status the response is committed with,
 * exactly once; an exchange cancelled before it had one (the client went away) is charged once
 * the handler started (docs/design.md §2.7), refunded before, or with {@code refundCancelled}.
 * The remaining units are read with {@code check}, which charges nothing.
 */
class RateLimitWebFilterChargeOnTest {
  private final ManualClock clock = new ManualClock(1_700_000_000_000L);
  private final RateLimiter limiter = RateLimiter.builder().clock(clock)
      .limit("failed", "fixed-window rate=3 period=1h").build();
  private final RateLimitWebFilter filter = RateLimitWebFilter.builder().limiter(limiter)
      .rule("/login", "failed", "header:X-User", 1).chargeOn("401,5xx").build();

  private double remaining(String user) {
    return limiter.named("failed").check(user, 0).remaining();
  }

  private static MockServerWebExchange exchange(String user) {
    return MockServerWebExchange.from(MockServerHttpRequest.get("/login").header("X-User", user));
  }

  /** A handler answering with this status and committing the response, as WebFlux does. */
  private static WebFilterChain answering(HttpStatus status) {
    return exchange -> {
      exchange.getResponse().setStatusCode(status);
      return exchange.getResponse().setComplete();
    };
  }

  @Test
  void countingStatus_keepsTheCharge_othersAreRefunded() {
    filter.filter(exchange("ann"), answering(HttpStatus.OK)).block(Duration.ofSeconds(5));
    assertThat(remaining("ann")).isEqualTo(3);
    filter.filter(exchange("ann"), answering(HttpStatus.NOT_FOUND)).block(Duration.ofSeconds(5));
    assertThat(remaining("ann")).isEqualTo(3);
    filter.filter(exchange("ann"), answering(HttpStatus.UNAUTHORIZED)).block(Duration.ofSeconds(5));
    assertThat(remaining("ann")).isEqualTo(2);
    filter.filter(exchange("ann"), answering(HttpStatus.BAD_GATEWAY)).block(Duration.ofSeconds(5));
    assertThat(remaining("ann")).isEqualTo(1);
  }

  @Test
  void statusNeverSet_isA200_andRefunded() {
    filter.filter(exchange("bea"), exchange -> exchange.getResponse().setComplete()).block(Duration.ofSeconds(5));
    assertThat(remaining("bea")).isEqualTo(3);
  }

  @Test
  void cancelledAfterTheHandlerStarted_isCharged_andACommitAfterwardsChangesNothing() {
    Sinks.Empty<Void> never = Sinks.empty();
    AtomicInteger ran = new AtomicInteger();
    MockServerWebExchange exchange = exchange("cid");
    Disposable running = filter.filter(exchange, e -> {
      ran.incrementAndGet();
      return never.asMono();
    }).subscribe();
    assertThat(ran).hasValue(1);
    assertThat(remaining("cid")).isEqualTo(2); // charged up front
    running.dispose(); // the client went away while the password was checked
    assertThat(remaining("cid")).as("the check ran: charged").isEqualTo(2);
    // a late commit (WebFlux cleaning up) settles nothing again
    exchange.getResponse().setStatusCode(HttpStatus.OK);
    exchange.getResponse().setComplete().block(Duration.ofSeconds(5));
    assertThat(remaining("cid")).isEqualTo(2);
  }

  @Test
  void refundCancelled_refundsACancelAfterTheHandlerStarted_butKeepsACountingStatus() {
    RateLimitWebFilter refunding = RateLimitWebFilter.builder().limiter(limiter)
        .rule("/login", "failed", "header:X-User", 1).chargeOn("401").refundCancelled().build();
    Sinks.Empty<Void> never = Sinks.empty();
    refunding.filter(exchange("cal"), e -> never.asMono()).subscribe().dispose();
    assertThat(remaining("cal")).isEqualTo(3);
    refunding.filter(exchange("cal"), answering(HttpStatus.UNAUTHORIZED)).block(Duration.ofSeconds(5));
    assertThat(remaining("cal")).isEqualTo(2);
  }

  @Test
  void cancelledWhileTheLimitIsDecided_isRefunded_andTheHandlerNeverRuns() {
    SwitchableStore store = new SwitchableStore(new InMemoryStore(clock));
    RateLimiter later = RateLimiter.builder().clock(clock).store(store)
        .limit("failed", "fixed-window rate=3 period=1h").build();
    RateLimitWebFilter slow = RateLimitWebFilter.builder().limiter(later)
        .rule("/login", "failed", "header:X-User", 1).chargeOn("401").build();
    AtomicInteger ran = new AtomicInteger();
    store.holdAnswers();
    Disposable waiting = slow.filter(exchange("ada"), e -> {
      ran.incrementAndGet();
      return e.getResponse().setComplete();
    }).subscribe();
    waiting.dispose(); // the client went away before the store answered
    store.releaseAnswers(); // the store takes the unit, and the settlement gives it back
    assertThat(ran).as("nothing ran").hasValue(0);
    assertThat(later.named("failed").check("ada", 0).remaining()).isEqualTo(3);
  }

  @Test
  void cancelledAfterCommit_keepsTheCommittedStatus() {
    Sinks.Empty<Void> never = Sinks.empty();
    Disposable running = filter.filter(exchange("dan"), exchange -> {
      exchange.getResponse().setStatusCode(HttpStatus.UNAUTHORIZED);
      return exchange.getResponse().setComplete().then(never.asMono());
    }).subscribe();
    assertThat(remaining("dan")).isEqualTo(2);
    running.dispose();
    assertThat(remaining("dan")).isEqualTo(2);
  }

  @Test
  void handlerError_settlesByTheStatusTheErrorIsAnsweredWith_once() {
    AtomicInteger commits = new AtomicInteger();
    MockServerWebExchange exchange = exchange("eve");
    Mono<Void> failing = filter.filter(exchange, e -> Mono.error(new IllegalStateException("boom")))
        .onErrorResume(e -> {
          // what WebFlux's error handling does: answer the error, committing the response
          exchange.getResponse().setStatusCode(HttpStatus.INTERNAL_SERVER_ERROR);
          commits.incrementAndGet();
          return exchange.getResponse().setComplete();
        });
    failing.block(Duration.ofSeconds(5));
    assertThat(commits).hasValue(1);
    assertThat(remaining("eve")).isEqualTo(2);
    exchange.getResponse().setComplete().block(Duration.ofSeconds(5));
    assertThat(remaining("eve")).isEqualTo(2);
  }

  @Test
  void deniedRequest_isNotSettled_andTheHandlerNeverRuns() {
    for (int i = 0; i < 3; i++) {
      filter.filter(exchange("fay"), answering(HttpStatus.UNAUTHORIZED)).block(Duration.ofSeconds(5));
    }
    AtomicInteger ran = new AtomicInteger();
    MockServerWebExchange denied = exchange("fay");
    filter.filter(denied, exchange -> {
      ran.incrementAndGet();
      return exchange.getResponse().setComplete();
    }).block(Duration.ofSeconds(5));
    assertThat(denied.getResponse().getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
    assertThat(ran).hasValue(0);
    assertThat(remaining("fay")).isEqualTo(0);
  }
}

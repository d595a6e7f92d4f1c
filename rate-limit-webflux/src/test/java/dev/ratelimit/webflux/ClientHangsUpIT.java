package dev.ratelimit.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.limiter.RateLimiter;
import java.net.http.HttpResponse;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
import reactor.core.publisher.Mono;

/**
 * What a client that hangs up costs (docs/design.md §2.7), in a reactive Boot application on
 * Reactor Netty with Boot's own auto-configuration: failed logins limited by
 * {@code charge-on: 401} (5 per 15 minutes) in front of a slow password check. An attacker who
 * sends a login and hangs up once the check started has that check charged: 30 tries get 5
 * checks, then 429s. With {@code refund-cancelled: true}, the operator's choice, every such try
 * is refunded.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = ClientHangsUpIT.App.class,
    properties = {
        "ratelimit.limits.logins=fixed-window rate=5 period=15m",
        "ratelimit.filter.rules[0].path=/login", "ratelimit.filter.rules[0].limit=logins",
        "ratelimit.filter.rules[0].key=param:user", "ratelimit.filter.rules[0].charge-on=401",
        "ratelimit.filter.rules[1].path=/login-refunded", "ratelimit.filter.rules[1].limit=logins",
        "ratelimit.filter.rules[1].key=param:user", "ratelimit.filter.rules[1].charge-on=401",
        "ratelimit.filter.rules[1].refund-cancelled=true"})
class ClientHangsUpIT {
  private static final long GUARD_SECONDS = 30;

  @LocalServerPort
  int port;

  @Autowired
  RateLimiter limiter;

  @Autowired
  PasswordCheck check;

  /**
   * The slow password check. While {@code holding}, a check signals that it started and never
   * answers (the client does not wait for it), and signals when it is cancelled; otherwise it
   * fails at once with 401, so that a check the test did not expect shows as a 401, not a hang.
   */
  static final class PasswordCheck {
    final AtomicInteger runs = new AtomicInteger();
    final Semaphore started = new Semaphore(0);
    final Semaphore cancelled = new Semaphore(0);
    volatile boolean holding;

    Mono<ResponseEntity<String>> run() {
      return Mono.defer(() -> {
        runs.incrementAndGet();
        if (!holding) {
          return Mono.just(ResponseEntity.status(HttpStatus.UNAUTHORIZED).body("wrong password"));
        }
        started.release();
        return Mono.<ResponseEntity<String>>never().doOnCancel(cancelled::release);
      });
    }
  }

  @SpringBootApplication
  static class App {
    @Bean
    SecurityWebFilterChain security(ServerHttpSecurity http) {
      return http.csrf(csrf -> csrf.disable()).authorizeExchange(exchanges -> exchanges.anyExchange().permitAll())
          .build();
    }

    @Bean
    PasswordCheck passwordCheck() {
      return new PasswordCheck();
    }

    @RestController
    static class Login {
      private final PasswordCheck check;

      Login(PasswordCheck check) {
        this.check = check;
      }

      @GetMapping({"/login", "/login-refunded"})
      Mono<ResponseEntity<String>> login(@RequestParam String user) {
        return check.run();
      }
    }
  }

  /** Sends a login, waits until its check started, hangs up, and waits until the server cancelled it. */
  private void hangUpDuringTheCheck(String path) throws Exception {
    check.holding = true;
    try (RawClient client = RawClient.get(port, path)) {
      acquire(check.started, "the check never started (was the request denied?)");
      client.hangUp();
    }
    // the filter's cancel runs before the handler's: the charge is settled by now
    acquire(check.cancelled, "the server never cancelled the check");
  }

  private static void acquire(Semaphore signal, String what) throws InterruptedException {
    assertThat(signal.tryAcquire(GUARD_SECONDS, TimeUnit.SECONDS)).as(what).isTrue();
  }

  @Test
  void hangingUpAfterTheCheckStarted_isCharged_thirtyTriesRunFiveChecksThen429() throws Exception {
    int runsBefore = check.runs.get();
    for (int attempt = 0; attempt < 30; attempt++) {
      if (attempt < 5) {
        hangUpDuringTheCheck("/login?user=mallory");
        assertThat(limiter.named("logins").check("mallory", 0).remaining()).as("after try %d", attempt + 1)
            .isEqualTo(4 - attempt);
        continue;
      }
      check.holding = false;
      try (RawClient client = RawClient.get(port, "/login?user=mallory")) {
        RawClient.Reply reply = client.read();
        assertThat(reply.status()).as("try %d", attempt + 1).isEqualTo(429);
        assertThat(reply.headers()).containsEntry("x-ratelimit-remaining", "0");
        assertThat(reply.body()).contains("\"limit\":\"logins\"");
      }
    }
    assertThat(check.runs.get() - runsBefore).as("password checks run").isEqualTo(5);
    HttpResponse<String> honest = new Http(port).get("/login?user=mallory");
    assertThat(honest.statusCode()).isEqualTo(429);
    assertThat(check.runs.get() - runsBefore).isEqualTo(5);
    assertThat(new Http(port).get("/login?user=alice").statusCode()).as("another user").isEqualTo(401);
  }

  @Test
  void refundCancelled_refundsEveryHangUp_evenAfterTheCheckStarted() throws Exception {
    int runsBefore = check.runs.get();
    for (int attempt = 0; attempt < 30; attempt++) {
      hangUpDuringTheCheck("/login-refunded?user=trudy");
      assertThat(limiter.named("logins").check("trudy", 0).remaining()).as("after try %d", attempt + 1).isEqualTo(5);
    }
    assertThat(check.runs.get() - runsBefore).as("password checks run, none paid").isEqualTo(30);
    check.holding = false;
    HttpResponse<String> answered = new Http(port).get("/login-refunded?user=trudy");
    assertThat(answered.statusCode()).as("a 401 answered still counts").isEqualTo(401);
    assertThat(limiter.named("logins").check("trudy", 0).remaining()).isEqualTo(4);
  }
}

package dev.ratelimit.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.SwitchableStore;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.InMemoryStore;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code chargeIf} on a {@code CompletionStage} method whose caller cancels the stage it was
 * given, as WebFlux does for a client that went away (docs/design.md §7.1): a method that started
 * is settled by its own outcome, so a failed login whose caller left is charged; a call
 * cancelled before its decision arrived never runs, and is refunded.
 */
class ChargeIfCancelledTest {
  private AnnotationConfigApplicationContext context;
  private Logins logins;
  private SwitchableStore store;
  private RateLimiter limiter;

  /** A login whose password check ends when the test completes {@link #check}. */
  public static class Logins {
    private final AtomicInteger runs = new AtomicInteger();
    private volatile CompletableFuture<Boolean> check;

    public int runs() {
      return runs.get();
    }

    public CompletableFuture<Boolean> check() {
      return check;
    }

    @RateLimited(name = "failed", key = "#user", chargeIf = "#result == false")
    public CompletionStage<Boolean> login(String user) {
      runs.incrementAndGet();
      check = new CompletableFuture<>();
      return check;
    }
  }

  @Configuration
  @EnableRateLimiting
  static class App {
    @Bean
    ManualClock clock() {
      return new ManualClock(1_767_225_600_000L);
    }

    @Bean
    SwitchableStore store(ManualClock clock) {
      return new SwitchableStore(new InMemoryStore(clock));
    }

    @Bean
    RateLimiter rateLimiter(ManualClock clock, SwitchableStore store) {
      return RateLimiter.builder().clock(clock).store(store).limit("failed", "fixed-window rate=3 period=1h").build();
    }

    @Bean
    Logins logins() {
      return new Logins();
    }
  }

  @BeforeEach
  void start() {
    context = new AnnotationConfigApplicationContext(App.class);
    logins = context.getBean(Logins.class);
    store = context.getBean(SwitchableStore.class);
    limiter = context.getBean(RateLimiter.class);
  }

  @AfterEach
  void close() {
    context.close();
  }

  private double remaining(String user) {
    return limiter.named("failed").check(user, 0).remaining();
  }

  @Test
  void stage_cancelledAfterTheMethodStarted_isSettledByItsOutcome_notRefunded() {
    CompletableFuture<Boolean> given = logins.login("ann").toCompletableFuture();
    assertThat(logins.runs()).isEqualTo(1);
    given.cancel(false); // the caller went away while the password was checked
    logins.check().complete(false); // the check ends: a failed login
    assertThat(remaining("ann")).as("charged, though no one waited for it").isEqualTo(2);

    logins.login("ann").toCompletableFuture().cancel(false);
    logins.check().complete(true); // a success: refunded by its chargeIf, whoever waits for it
    assertThat(remaining("ann")).isEqualTo(2);
  }

  @Test
  void stage_cancelledBeforeItsDecisionArrived_neverRunsTheMethod_andIsRefunded() {
    store.holdAnswers();
    CompletableFuture<Boolean> given = logins.login("bea").toCompletableFuture();
    given.cancel(false); // gone while the store decides
    store.releaseAnswers(); // the store takes the unit; nothing started, so it is given back
    assertThat(logins.runs()).as("the method never ran").isZero();
    assertThat(remaining("bea")).isEqualTo(3);
  }

  @Test
  void stage_notCancelled_isSettledByItsOutcome() {
    store.holdAnswers();
    CompletableFuture<Boolean> given = logins.login("cid").toCompletableFuture();
    store.releaseAnswers();
    assertThat(logins.runs()).isEqualTo(1);
    logins.check().complete(false);
    assertThat(given).isCompletedWithValue(false);
    assertThat(remaining("cid")).isEqualTo(2);
  }
}

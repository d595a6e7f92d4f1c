package dev.ratelimit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ratelimit.Decision;
import dev.ratelimit.DecisionListener;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.ManualClock;
import dev.ratelimit.limiter.Decisions;
import dev.ratelimit.limiter.NamedLimiter;
import dev.ratelimit.limiter.PendingCharge;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.RateLimitStore;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A listener that throws can't break a decision (docs/design.md §10): whatever it throws (a
 * runtime exception, a checked one thrown sneakily as Kotlin code may, an {@code Error}, a real
 * stack overflow, an {@code OutOfMemoryError} of its own) is caught, every decision stands as the
 * store made it, and no unit is lost or taken twice. Every operation that reports, sync and async;
 * each store's test only builds the store.
 */
public abstract class ThrowingListenerContract {
  /** 5 units, one back every 12 minutes: nothing refills within a test but what acquire waits for. */
  private static final String SPEC = "token-bucket rate=5 period=1h";
  private static final long UNIT_MILLIS = 720_000;

  protected final ManualClock clock = new ManualClock(1_767_225_600_000L);
  private final AtomicInteger heard = new AtomicInteger();
  private RateLimiter limiter;

  /** A store on {@code clock}, with nothing in it. */
  protected abstract RateLimitStore newStore(ManualClock clock);

  /** What a broken listener throws. */
  public enum Thrown {
    RUNTIME {
      @Override
      void raise() {
        throw new IllegalStateException("broken metrics");
      }
    },
    CHECKED {
      @Override
      void raise() {
        ThrowingListenerContract.<RuntimeException>sneaky(new IOException("checked, thrown sneakily"));
      }
    },
    ERROR {
      @Override
      void raise() {
        throw new AssertionError("an Error");
      }
    },
    STACK_OVERFLOW {
      @Override
      void raise() {
        deeper(0);
      }
    },
    OUT_OF_MEMORY {
      @Override
      void raise() {
        throw new OutOfMemoryError("thrown by the listener itself");
      }
    };

    abstract void raise();
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> void sneaky(Throwable failure) throws T {
    throw (T) failure;
  }

  /** Recurses until the stack runs out: a real {@link StackOverflowError}, thrown deep down. */
  private static int deeper(int depth) {
    return deeper(depth + 1) + 1;
  }

  private RateLimiter limiter(Thrown thrown) {
    DecisionListener broken = (limit, decision, fallback) -> {
      heard.incrementAndGet();
      thrown.raise();
    };
    limiter = RateLimiter.builder().clock(clock).store(newStore(clock)).storeFailure(FailurePolicy.CLOSED)
        .limit("api", SPEC).limit("other", SPEC).listener(broken).build();
    return limiter;
  }

  @AfterEach
  void closeLimiter() {
    if (limiter != null) {
      limiter.close();
    }
  }

  private double left(String name) {
    return limiter.named(name).check("k", 0).remaining();
  }

  @ParameterizedTest
  @EnumSource(Thrown.class)
  void limit_decisionStands_unitsTakenOnce(Thrown thrown) {
    RateLimiter limiter = limiter(thrown);
    for (int i = 1; i <= 5; i++) {
      Decision decision = limiter.named("api").limit("k", 1);
      assertThat(decision.allowed()).isTrue();
      assertThat(decision.remaining()).isCloseTo(5 - i, within(1e-9));
    }
    assertThat(limiter.named("api").limit("k", 1).allowed()).isFalse();
    assertThat(heard.get()).isEqualTo(6);
  }

  @ParameterizedTest
  @EnumSource(Thrown.class)
  void charge_thenSettleFalse_givesEveryUnitBack(Thrown thrown) {
    RateLimiter limiter = limiter(thrown);
    PendingCharge charge = limiter.named("api").charge("k", 5);
    assertThat(charge.allowed()).isTrue();
    assertThat(heard.get()).isEqualTo(1);
    assertThat(left("api")).isCloseTo(0, within(1e-9));

    charge.settle(false);

    assertThat(left("api")).as("all 5 units back").isCloseTo(5, within(1e-9));
  }

  @ParameterizedTest
  @EnumSource(Thrown.class)
  void limitAll_decisionStands_onEveryLimit(Thrown thrown) {
    RateLimiter limiter = limiter(thrown);
    Decisions decisions = limiter.limitAll(limiter.named("api").call("k", 2), limiter.named("other").call("k", 3));
    assertThat(decisions.allowed()).isTrue();
    assertThat(left("api")).isCloseTo(3, within(1e-9));
    assertThat(left("other")).isCloseTo(2, within(1e-9));
    assertThat(heard.get()).as("once per call").isEqualTo(2 + 2);
  }

  @ParameterizedTest
  @EnumSource(Thrown.class)
  void reserve_decisionStands_theDebtTakenOnce(Thrown thrown) {
    RateLimiter limiter = limiter(thrown);
    Decision reserved = limiter.named("api").reserve("k", 7);
    assertThat(reserved.allowed()).isTrue();
    assertThat(reserved.retryAfterMillis()).as("2 units of debt").isEqualTo(2 * UNIT_MILLIS);
    assertThat(limiter.named("api").reserve("k", 0).retryAfterMillis()).as("the debt taken once").isEqualTo(2 * UNIT_MILLIS);
  }

  @ParameterizedTest
  @EnumSource(Thrown.class)
  void acquire_waitsItsTurn_andKeepsItsReservation(Thrown thrown) throws Exception {
    RateLimiter limiter = limiter(thrown);
    assertThat(limiter.named("api").limit("k", 5).allowed()).isTrue();
    long before = clock.millis();

    Decision acquired = limiter.named("api").acquire("k", 1, Duration.ofHours(1));

    assertThat(acquired.allowed()).isTrue();
    assertThat(heard.get()).isEqualTo(2);
    assertThat(clock.millis() - before).as("slept until the unit was due").isEqualTo(UNIT_MILLIS);
    assertThat(left("api")).as("the acquired unit is taken").isCloseTo(0, within(1e-9));
  }

  @ParameterizedTest
  @EnumSource(Thrown.class)
  void asyncForms_completeWithTheirDecisions(Thrown thrown) throws Exception {
    RateLimiter limiter = limiter(thrown);
    assertThat(get(limiter.named("api").limitAsync("k", 2)).remaining()).isCloseTo(3, within(1e-9));
    assertThat(get(limiter.named("api").checkAsync("k", 1)).remaining()).isCloseTo(3, within(1e-9));
    Decisions all = get(limiter.limitAllAsync(List.of(limiter.named("api").call("k", 1), limiter.named("other").call("k", 1))));
    assertThat(all.allowed()).isTrue();
    assertThat(all.decisions()).extracting(Decision::remaining).containsExactly(2.0, 4.0);
    Decision reserved = get(limiter.named("api").reserveAsync("k", 3));
    assertThat(reserved.allowed()).isTrue();
    assertThat(reserved.retryAfterMillis()).as("1 unit of debt").isEqualTo(UNIT_MILLIS);
    long before = clock.millis();

    Decision acquired = get(limiter.named("api").acquireAsync("k", 1, Duration.ofHours(1)));

    assertThat(acquired.allowed()).isTrue();
    assertThat(acquired.retryAfterMillis()).as("2 units of debt").isEqualTo(2 * UNIT_MILLIS);
    assertThat(clock.millis() - before).as("waited until the unit was due").isEqualTo(2 * UNIT_MILLIS);
    assertThat(heard.get()).as("each decision heard once").isEqualTo(1 + 1 + 2 + 1 + 1);
    assertThat(left("api")).as("the debt paid off by the wait, nothing taken twice").isCloseTo(0, within(1e-9));
  }

  private static <T> T get(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
  }
}

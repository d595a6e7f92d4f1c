package dev.ratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.Concurrently;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link NamedLimiter#charge}: charged up front, refunded when the outcome does not count. */
class ChargeByOutcomeTest {
  private final ManualClock clock = new ManualClock(1_767_225_600_000L);
  private final RateLimiter limiter = RateLimiter.builder().clock(clock)
      .limit("failed-logins", "fixed-window rate=10 period=1h")
      .limit("watch", "fixed-window rate=1 period=1h mode=shadow").build();

  @Test
  void charge_settledAsNotCounting_givesTheUnitsBack_once() {
    PendingCharge charge = limiter.named("failed-logins").charge("alice", 3);
    assertThat(charge.allowed()).isTrue();
    assertThat(limiter.named("failed-logins").check("alice", 0).remaining()).isEqualTo(7);
    charge.settle(false);
    charge.settle(false);
    charge.settle(true);
    assertThat(limiter.named("failed-logins").check("alice", 0).remaining()).isEqualTo(10);
    limiter.named("failed-logins").charge("alice", 3).settle(true);
    assertThat(limiter.named("failed-logins").check("alice", 0).remaining()).isEqualTo(7);
  }

  @Test
  void charge_deniedOrShadowDenied_tookNothing_andRefundsNothing() {
    limiter.named("failed-logins").limit("bob", 9);
    PendingCharge denied = limiter.named("failed-logins").charge("bob", 2);
    assertThat(denied.allowed()).isFalse();
    denied.refund();
    assertThat(limiter.named("failed-logins").check("bob", 0).remaining()).isEqualTo(1);

    limiter.named("watch").charge("bob", 1).settle(true);
    limiter.named("failed-logins").limit("bob", 0);
    PendingCharge shadowed = limiter.named("watch").charge("bob", 1);
    assertThat(shadowed.allowed()).as("a shadow limit never denies").isTrue();
    shadowed.refund();
    assertThat(limiter.named("watch").check("bob", 0).remaining()).as("nothing was taken, nothing given back").isZero();
  }

  @Test
  void charge_onAPlan() {
    RateLimiter planned = RateLimiter.builder().clock(clock).limit("l", "fixed-window rate=1 period=1h")
        .onPlan("pro").limit("l", "fixed-window rate=3 period=1h").build();
    planned.named("l").onPlan("pro").charge("k", 3).settle(true);
    assertThat(planned.named("l").onPlan("pro").check("k", 0).remaining()).isZero();
    assertThat(planned.named("l").check("k", 0).remaining()).as("one state per key: 3 used, capped by 1").isEqualTo(0);
    assertThat(planned.named("l").check("other", 0).remaining()).isEqualTo(1);
  }

  /**
   * Many threads log in; one in three fails. Charged up front, refunded on success: the failures
   * admitted never exceed the limit, and what is left is exactly the limit less them.
   */
  @Test
  void charge_refundOnSuccess_underConcurrency_neverAdmitsMoreFailuresThanTheLimit() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    AtomicInteger failuresCharged = new AtomicInteger();
    Concurrently.run(4, () -> {
      for (int i = 0; i < 20_000; i++) {
        PendingCharge charge = limiter.named("failed-logins").charge("mallory", 1);
        if (!charge.allowed()) {
          continue;
        }
        boolean failed = attempts.incrementAndGet() % 3 == 0;
        if (failed) {
          failuresCharged.incrementAndGet();
        }
        charge.settle(failed);
      }
      return null;
    });
    assertThat(failuresCharged.get()).isBetween(1, 10);
    assertThat(limiter.named("failed-logins").check("mallory", 0).remaining()).isEqualTo(10.0 - failuresCharged.get());
  }
}

package dev.ratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ratelimit.ManualClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link RateLimiter#chargeAll}: every limit charged or none, then each charge settled on its own,
 * giving back only what it took; blocking and not.
 */
class ChargeAllTest {
  private final ManualClock clock = new ManualClock(1_767_225_600_000L);
  private final RateLimiter limiter = RateLimiter.builder().clock(clock)
      .limit("requests", "fixed-window rate=10 period=1h")
      .limit("tokens", "token-bucket rate=1000 period=1h")
      .limit("soft", "fixed-window rate=3 period=1h mode=shadow").build();

  private List<PendingCharge> charge(boolean async, NamedLimiter.Call... calls) {
    return async ? limiter.chargeAllAsync(List.of(calls)).toCompletableFuture().join() : limiter.chargeAll(List.of(calls));
  }

  private double remaining(String limit, String key) {
    return limiter.named(limit).check(key, 0).remaining();
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void admitted_eachChargeSettlesOnItsOwn(boolean async) {
    List<PendingCharge> charges = charge(async, limiter.named("requests").call("u"), limiter.named("tokens").call("u", 100));
    assertThat(charges).hasSize(2).allMatch(PendingCharge::allowed);
    assertThat(remaining("requests", "u")).isEqualTo(9);
    assertThat(remaining("tokens", "u")).isCloseTo(900, within(1e-6));

    charges.get(0).settle(false);
    charges.get(1).settleActual(250);
    assertThat(remaining("requests", "u")).as("refunded").isEqualTo(10);
    assertThat(remaining("tokens", "u")).as("the actual cost").isCloseTo(750, within(1e-6));
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void deniedAsAWhole_takesNothing_andItsSettlementsGiveNothingBack(boolean async) {
    assertThat(limiter.named("tokens").limit("v", 950).allowed()).isTrue();
    List<PendingCharge> charges = charge(async, limiter.named("requests").call("v"), limiter.named("tokens").call("v", 100));
    assertThat(charges.get(0).allowed()).as("admitted alone, but not with the others").isTrue();
    assertThat(charges.get(1).allowed()).isFalse();
    charges.forEach(charge -> charge.settle(false));
    assertThat(remaining("requests", "v")).isEqualTo(10);
    assertThat(remaining("tokens", "v")).isCloseTo(50, within(1e-6));
  }

  /** A shadow limit's would-be denial takes nothing: its refund must give nothing back. */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aShadowLimitsWouldBeDenial_isAdmitted_andItsRefundGivesNothingBack(boolean async) {
    List<PendingCharge> first = charge(async, limiter.named("requests").call("w"), limiter.named("soft").call("w", 2));
    List<PendingCharge> second = charge(async, limiter.named("requests").call("w"), limiter.named("soft").call("w", 2));
    assertThat(second).allMatch(PendingCharge::allowed);
    assertThat(remaining("soft", "w")).as("only the first took from the shadow limit").isEqualTo(1);

    second.forEach(charge -> charge.settle(false));
    assertThat(remaining("soft", "w")).as("the second took nothing: nothing to give back").isEqualTo(1);
    assertThat(remaining("requests", "w")).isEqualTo(9);
    first.forEach(charge -> charge.settle(false));
    assertThat(remaining("soft", "w")).isEqualTo(3);
    assertThat(remaining("requests", "w")).isEqualTo(10);
  }

  /** Many threads charging and settling at once: each key ends at exactly what the settlements say. */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void concurrentChargesAndSettlements_endExact(boolean async) throws Exception {
    int threads = 8;
    // 0, 1 and 2 units in turn: about 800 in all, below the 1,000 the bucket holds, so none is denied
    int perThread = 100;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Double>> futures = new ArrayList<>();
    Function<Integer, Double> work = seed -> {
      double actual = 0;
      for (int i = 0; i < perThread; i++) {
        List<PendingCharge> charges = charge(async, limiter.named("tokens").call("x", 1), limiter.named("soft").call("x", 1));
        assertThat(charges.get(0).allowed()).isTrue();
        double cost = (seed * 31 + i) % 3; // 0, 1 or 2 units: refunds, keeps, takes more
        charges.get(0).settleActual(cost);
        charges.get(1).settle(false);
        actual += cost;
      }
      return actual;
    };
    for (int t = 0; t < threads; t++) {
      int seed = t;
      futures.add(pool.submit(() -> {
        start.await();
        return work.apply(seed);
      }));
    }
    start.countDown();
    double spent = 0;
    for (Future<Double> future : futures) {
      spent += future.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertThat(remaining("tokens", "x")).isCloseTo(1000 - spent, within(1e-6));
    assertThat(remaining("soft", "x")).as("every unit the shadow limit took was given back, none more").isEqualTo(3);
  }
}

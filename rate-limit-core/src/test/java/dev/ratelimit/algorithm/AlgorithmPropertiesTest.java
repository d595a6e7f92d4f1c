package dev.ratelimit.algorithm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ratelimit.Decision;
import dev.ratelimit.FixedWindow;
import dev.ratelimit.Gcra;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Quota;
import dev.ratelimit.SlidingLog;
import dev.ratelimit.SlidingWindow;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.algorithm.ReferenceModels.Model;
import dev.ratelimit.limiter.RateLimiter;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.function.LongPredicate;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Each algorithm, through the real limiter and in-memory store, against a plain reference model
 * over random timelines (time also going back, takes into debt and past their bound): the same
 * admissions, the same remaining units, waits within a millisecond. And on the implementation alone: every wait is exact by its own
 * decisions.
 */
class AlgorithmPropertiesTest {
  private static final long DAY = 86_400_000;

  enum Op { LIMIT, CHECK, RESERVE, TAKE }

  record Step(long dt, Op op, double count) {}

  record Timeline(Limit limit, long start, List<Step> steps) {}

  @Property(tries = 300)
  void tokenBucket_matchesReference(@ForAll("tokenBuckets") Timeline timeline) {
    matchesReference(timeline);
  }

  @Property(tries = 300)
  void gcra_matchesReference(@ForAll("gcras") Timeline timeline) {
    matchesReference(timeline);
  }

  @Property(tries = 300)
  void fixedWindow_matchesReference(@ForAll("fixedWindows") Timeline timeline) {
    matchesReference(timeline);
  }

  @Property(tries = 300)
  void slidingWindow_matchesReference(@ForAll("slidingWindows") Timeline timeline) {
    matchesReference(timeline);
  }

  @Property(tries = 300)
  void slidingLog_matchesReference(@ForAll("slidingLogs") Timeline timeline) {
    matchesReference(timeline);
  }

  @Property(tries = 300)
  void quota_matchesReference(@ForAll("quotas") Timeline timeline) {
    matchesReference(timeline);
  }

  @Property(tries = 300)
  void waits_areExactByTheLimitersOwnDecisions(@ForAll("anyLimit") Timeline timeline) {
    ManualClock clock = new ManualClock(timeline.start());
    RateLimiter limiter = RateLimiter.builder().clock(clock).limit("l", timeline.limit()).build();
    long now = timeline.start();
    for (Step step : timeline.steps()) {
      now += step.dt();
      clock.setMillis(now);
      Decision decision = apply(limiter, step);
      if (!decision.allowed() && step.op() != Op.RESERVE) {
        // a take answers as a check for 0 units: when the key is out of debt
        double asked = step.op() == Op.TAKE ? 0 : step.count();
        long retry = decision.retryAfterMillis();
        assertThat(retry).isPositive();
        clock.setMillis(now + retry);
        assertThat(limiter.named("l").check("k", asked).allowed()).as("admitted at now + retryAfter").isTrue();
        clock.setMillis(now + retry - 1);
        assertThat(limiter.named("l").check("k", asked).allowed()).as("denied just before").isFalse();
      }
      long reset = decision.resetAfterMillis();
      clock.setMillis(now + reset);
      assertThat(limiter.named("l").check("k", 0).remaining()).as("full at now + resetAfter")
          .isCloseTo(timeline.limit().capacity(), within(1e-9 * Math.max(1, timeline.limit().capacity())));
      if (reset > 0) {
        clock.setMillis(now + reset - 1);
        assertThat(limiter.named("l").check("k", 0).remaining()).as("not yet full just before")
            .isLessThan(timeline.limit().capacity());
      }
      clock.setMillis(now);
    }
  }

  /**
   * A decision that writes nothing (a denial, a check, 0 units), asked again at the same time,
   * is the same decision (on a key held, the one kept from the first ask: docs/design.md §4.2),
   * and asking again changes nothing after: the limiter goes on exactly as one asked once (whose
   * decisions the properties above hold to the reference model).
   */
  @Property(tries = 300)
  void keptDecisions_areTheSameAndChangeNothing(@ForAll("wordKinds") Timeline timeline) {
    ManualClock clock = new ManualClock(timeline.start());
    RateLimiter once = RateLimiter.builder().clock(clock).limit("l", timeline.limit()).build();
    RateLimiter thrice = RateLimiter.builder().clock(clock).limit("l", timeline.limit()).build();
    long now = timeline.start();
    int index = 0;
    for (Step step : timeline.steps()) {
      now += step.dt();
      clock.setMillis(now);
      Decision expected = apply(once, step);
      Decision first = apply(thrice, step);
      String at = "step " + index++ + " " + step + " at " + now + " of " + timeline.limit();
      assertThat(first).as(at).isEqualTo(expected);
      boolean wroteNothing = step.count() == 0
          || step.op() != Op.TAKE && (!first.allowed() || step.op() == Op.CHECK); // a take writes
      if (wroteNothing) {
        assertThat(apply(thrice, step)).as(at + ", asked again").isEqualTo(first);
        assertThat(apply(thrice, step)).as(at + ", asked a third time").isEqualTo(first);
      }
    }
  }

  private static void matchesReference(Timeline timeline) {
    Limit limit = timeline.limit();
    ManualClock clock = new ManualClock(timeline.start());
    RateLimiter limiter = RateLimiter.builder().clock(clock).limit("l", limit).build();
    Model model = ReferenceModels.of(limit);
    double capacity = limit.capacity();
    double scale = Math.max(1, capacity + (Double.isInfinite(limit.maxReserved()) ? capacity : limit.maxReserved()));
    long now = timeline.start();
    int index = 0;
    for (Step step : timeline.steps()) {
      now += step.dt();
      clock.setMillis(now);
      Decision actual = apply(limiter, step);
      Decision expected = decide(model, limit, step, now);
      String at = "step " + index++ + " " + step + " at " + now + " of " + limit;
      assertThat(actual.allowed()).as(at).isEqualTo(expected.allowed());
      assertThat(actual.remaining()).as(at).isCloseTo(expected.remaining(), within(1e-7 * scale));
      assertThat(actual.retryAfterMillis()).as(at).isCloseTo(expected.retryAfterMillis(), within(1L));
      assertThat(actual.resetAfterMillis()).as(at).isCloseTo(expected.resetAfterMillis(), within(1L));
    }
  }

  private static Decision apply(RateLimiter limiter, Step step) {
    return switch (step.op()) {
      case LIMIT -> limiter.named("l").limit("k", step.count());
      case CHECK -> limiter.named("l").check("k", step.count());
      case RESERVE -> limiter.named("l").reserve("k", step.count());
      case TAKE -> limiter.named("l").take("k", step.count());
    };
  }

  /** The decision of docs/design.md §2–3, on the model; waits found by searching the model's levels. */
  private static Decision decide(Model model, Limit limit, Step step, long now) {
    double capacity = limit.capacity();
    double tolerance = 1e-9 * Math.max(1, capacity);
    if (step.op() == Op.TAKE) {
      // §2.4: whatever the level, into debt down to one capacity, or a finite maxReserved deeper
      double bound = Double.isInfinite(limit.maxReserved()) ? capacity : Math.max(capacity, limit.maxReserved());
      double units = Math.min(step.count(), Math.max(0, model.level(now) + bound));
      if (units > tolerance) { // float noise at the bound takes nothing (and moves no window)
        model.take(now, units);
      }
      // answered as a check for 0 units
      double after = model.level(now);
      boolean outOfDebt = after >= -tolerance;
      return new Decision(outOfDebt, after, capacity, outOfDebt ? 0 : earliest(d -> model.level(now + d) >= -tolerance),
          earliest(d -> model.level(now + d) >= capacity - tolerance));
    }
    double floor = step.op() == Op.RESERVE ? -limit.maxReserved() : 0;
    double level = model.level(now);
    boolean admitted = level - step.count() >= floor - tolerance;
    if (!admitted) {
      long retry = earliest(d -> model.level(now + d) - step.count() >= floor - tolerance);
      return new Decision(false, level, capacity, retry, earliest(d -> model.level(now + d) >= capacity - tolerance));
    }
    if (step.op() != Op.CHECK && step.count() > 0) {
      model.take(now, step.count());
    }
    long wait = step.op() == Op.RESERVE ? earliest(d -> model.level(now + d) >= -tolerance) : 0;
    double remaining = step.op() == Op.CHECK ? level : level - step.count();
    return new Decision(true, remaining, capacity, wait, earliest(d -> model.level(now + d) >= capacity - tolerance));
  }

  /** The smallest whole d ≥ 0 with {@code holds(d)}, for a predicate that stays true once true. */
  private static long earliest(LongPredicate holds) {
    if (holds.test(0)) {
      return 0;
    }
    long high = 1;
    while (!holds.test(high)) {
      high *= 2;
    }
    long low = high / 2;
    while (high - low > 1) {
      long mid = (low + high) / 2;
      if (holds.test(mid)) {
        high = mid;
      } else {
        low = mid;
      }
    }
    return high;
  }

  // ---- generators ----

  @Provide
  Arbitrary<Timeline> anyLimit() {
    return Arbitraries.oneOf(tokenBuckets(), gcras(), fixedWindows(), slidingWindows(), slidingLogs(), quotas());
  }

  /** The kinds whose state is one word per key, where decisions that write nothing are kept. */
  @Provide
  Arbitrary<Timeline> wordKinds() {
    return Arbitraries.oneOf(tokenBuckets(), gcras(), fixedWindows());
  }

  @Provide
  Arbitrary<Timeline> tokenBuckets() {
    return Combinators.combine(rates(), periods(), capacityFactors(), maxReserved())
        .as((rate, period, factor, reserve) -> (Limit) new TokenBucket(rate, Duration.ofMillis(period), rate * factor,
            reserve * rate * factor, 1, null))
        .flatMap(AlgorithmPropertiesTest::timeline);
  }

  @Provide
  Arbitrary<Timeline> gcras() {
    return Combinators.combine(rates(), periods(), capacityFactors(), maxReserved())
        .as((rate, period, factor, reserve) -> (Limit) new Gcra(rate, Duration.ofMillis(period), rate * factor,
            reserve * rate * factor, 1, null))
        .flatMap(AlgorithmPropertiesTest::timeline);
  }

  @Provide
  Arbitrary<Timeline> fixedWindows() {
    Arbitrary<Long> starts = Arbitraries.longs().between(0, 2_000_000_000_000L);
    return Combinators.combine(rates(), periods(), capacityFactors(), maxReserved(), starts)
        .as((rate, period, factor, reserve, start) -> (Limit) new FixedWindow(rate, Duration.ofMillis(period),
            rate * Math.max(1, factor), reserve * rate, 1, Instant.ofEpochMilli(start), false, null))
        .flatMap(AlgorithmPropertiesTest::timeline);
  }

  @Provide
  Arbitrary<Timeline> slidingWindows() {
    return Combinators.combine(rates(), Arbitraries.integers().between(1, 12), Arbitraries.longs().between(1, 400))
        .as((rate, buckets, width) -> (Limit) new SlidingWindow(rate, Duration.ofMillis(buckets * width), buckets, null))
        .flatMap(AlgorithmPropertiesTest::timeline);
  }

  @Provide
  Arbitrary<Timeline> slidingLogs() {
    return Combinators.combine(rates(), periods())
        .as((rate, period) -> (Limit) new SlidingLog(rate, Duration.ofMillis(period), null))
        .flatMap(AlgorithmPropertiesTest::timeline);
  }

  @Provide
  Arbitrary<Timeline> quotas() {
    return Combinators.combine(rates(), Arbitraries.of(Quota.Cadence.class), Arbitraries.integers().between(-48, 56))
        .as((rate, cadence, quarters) -> (Limit) new Quota(rate, cadence, ZoneOffset.ofTotalSeconds(quarters * 900), null))
        .flatMap(AlgorithmPropertiesTest::timeline);
  }

  private static Arbitrary<Double> rates() {
    return Arbitraries.oneOf(Arbitraries.integers().between(1, 20).map(Integer::doubleValue),
        Arbitraries.doubles().between(0.3, 40));
  }

  private static Arbitrary<Long> periods() {
    return Arbitraries.oneOf(Arbitraries.of(1000L, 60_000L, 250L), Arbitraries.longs().between(5, 5000));
  }

  private static Arbitrary<Double> capacityFactors() {
    return Arbitraries.oneOf(Arbitraries.just(1.0), Arbitraries.doubles().between(0.2, 3));
  }

  /** As a multiple of the capacity; infinity for unbounded debt. */
  private static Arbitrary<Double> maxReserved() {
    return Arbitraries.oneOf(Arbitraries.just(Double.POSITIVE_INFINITY), Arbitraries.just(0.0),
        Arbitraries.doubles().between(0, 2));
  }

  private static Arbitrary<Timeline> timeline(Limit limit) {
    long span = limit instanceof Quota ? 3 * DAY : limit instanceof TokenBucket || limit instanceof Gcra
        || limit instanceof FixedWindow ? ((Duration) period(limit)).toMillis() : ((Duration) period(limit)).toMillis();
    Arbitrary<Long> forward = Arbitraries.oneOf(Arbitraries.just(0L), Arbitraries.longs().between(0, span / 4 + 1),
        Arbitraries.longs().between(0, 2 * span));
    Arbitrary<Long> backward = Arbitraries.longs().between(-span, 0);
    Arbitrary<Long> dts = Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(9, forward), net.jqwik.api.Tuple.of(1, backward));
    double capacity = limit.capacity();
    double reserveTop = capacity + Math.min(limit.maxReserved(), 2 * capacity);
    Arbitrary<Op> ops = limit.reservable()
        ? Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(6, Arbitraries.just(Op.LIMIT)),
            net.jqwik.api.Tuple.of(3, Arbitraries.just(Op.CHECK)), net.jqwik.api.Tuple.of(2, Arbitraries.just(Op.RESERVE)),
            net.jqwik.api.Tuple.of(2, Arbitraries.just(Op.TAKE)))
        : Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(6, Arbitraries.just(Op.LIMIT)),
            net.jqwik.api.Tuple.of(3, Arbitraries.just(Op.CHECK)), net.jqwik.api.Tuple.of(2, Arbitraries.just(Op.TAKE)));
    Arbitrary<Step> steps = Combinators.combine(dts, ops, Arbitraries.doubles().between(0, 1),
            Arbitraries.of(0, 1, 2, 3, 4, 5, 6, 7))
        .as((dt, op, fraction, shape) -> {
          double top = op == Op.RESERVE ? reserveTop : op == Op.TAKE ? 2.5 * capacity : capacity;
          double count = switch (shape) {
            case 0 -> 0;
            case 1 -> Math.min(1, top);
            case 2 -> op == Op.TAKE ? 1e12 : top; // a take far past its bound
            default -> fraction * top;
          };
          return new Step(dt, op, count);
        });
    Arbitrary<Long> starts = Arbitraries.oneOf(Arbitraries.just(0L), Arbitraries.longs().between(1_600_000_000_000L, 1_900_000_000_000L));
    return Combinators.combine(starts, steps.list().ofMinSize(1).ofMaxSize(40))
        .as((start, list) -> new Timeline(limit, start, list));
  }

  private static Object period(Limit limit) {
    if (limit instanceof TokenBucket l) {
      return l.period();
    }
    if (limit instanceof Gcra l) {
      return l.period();
    }
    if (limit instanceof FixedWindow l) {
      return l.period();
    }
    if (limit instanceof SlidingWindow l) {
      return l.period();
    }
    return ((SlidingLog) limit).period();
  }
}

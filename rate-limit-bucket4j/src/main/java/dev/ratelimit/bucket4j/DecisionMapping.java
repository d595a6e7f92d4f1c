package dev.ratelimit.bucket4j;

import dev.ratelimit.Decision;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.EstimationProbe;
import io.github.bucket4j.VerboseResult;

/**
 * bucket4j's answers as {@link Decision}s (docs/design.md §3). A probe says whether the tokens were
 * (or could be) taken and gives whole tokens and nanoseconds rounded down; the state beside it
 * (bucket4j's verbose results) gives the refilled fraction of the next token and lets the waits
 * be confirmed by bucket4j's own refill, so a decision carries exact units and the first whole
 * millisecond that admits, as every store's decisions do.
 */
final class DecisionMapping {
  private DecisionMapping() {}

  /** {@code tryConsumeAndReturnRemaining}: a limit call. */
  static Decision limit(VerboseResult<ConsumptionProbe> result, BucketMapping mapping, long tokens) {
    ConsumptionProbe probe = result.getValue();
    BucketReading reading = BucketReading.of(result, mapping);
    long untilFull = reading.millisUntilFull(probe.getNanosToWaitForReset());
    if (probe.isConsumed()) {
      return new Decision(true, reading.units(), mapping.capacity(), 0, untilFull);
    }
    return new Decision(false, reading.units(), mapping.capacity(),
        reading.millisUntil(tokens, probe.getNanosToWaitForRefill()), untilFull);
  }

  /** {@code estimateAbilityToConsume}: a check, which changes nothing. */
  static Decision check(VerboseResult<EstimationProbe> result, BucketMapping mapping, long tokens) {
    EstimationProbe probe = result.getValue();
    BucketReading reading = BucketReading.of(result, mapping);
    long retryAfter = probe.canBeConsumed() ? 0 : reading.millisUntil(tokens, probe.getNanosToWaitForRefill());
    return new Decision(probe.canBeConsumed(), reading.units(), mapping.capacity(), retryAfter,
        reading.millisUntilFull());
  }

  /**
   * A look at the level for 0 units (bucket4j refuses to consume or estimate 0 tokens), and what
   * a refund returns: admitted while the level is not below 0, so that it reveals a debt.
   */
  static Decision look(BucketReading reading) {
    boolean allowed = reading.tokens() >= 0;
    return new Decision(allowed, reading.units(), reading.mapping().capacity(),
        allowed ? 0 : reading.millisUntil(0), reading.millisUntilFull());
  }

  /** An admitted reservation: the units left (negative in debt) and the wait before the work may run. */
  static Decision reserved(BucketReading after, long waitMillis) {
    return new Decision(true, after.units(), after.mapping().capacity(), waitMillis, after.millisUntilFull());
  }

  /**
   * A denied reservation, from the state it left untouched: when the reservation would fit within
   * {@code maxReserved}, or, when it fits but not within the caller's wait, how much later than
   * that wait it would be admitted.
   */
  static Decision reserveDenied(BucketReading before, long tokens, long maxWaitMillis) {
    BucketMapping mapping = before.mapping();
    long deepest = mapping.maxReservedTokens();
    long retryAfter;
    if (deepest == Long.MAX_VALUE || before.tokens() >= tokens - deepest) {
      // the wait it needs (until its debt is repaid), beyond the caller's
      retryAfter = before.taking(tokens).millisUntil(0) - maxWaitMillis;
    } else {
      retryAfter = before.millisUntil(tokens - deepest);
    }
    return new Decision(false, before.units(), mapping.capacity(), Math.max(1, retryAfter), before.millisUntilFull());
  }
}

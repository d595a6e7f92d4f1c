package dev.ratelimit.bucket4j;

import dev.ratelimit.internal.Waits;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketState;
import io.github.bucket4j.VerboseResult;

/**
 * A bucket's state as one bucket4j operation left it, at the time that operation read: what the
 * store reads remaining units and waits from. bucket4j keeps the part of a token refilled so far
 * as a rounding error beside the whole tokens, so the level is exact, fractions included; and the
 * waits are found by bucket4j's own refill arithmetic on copies of the state, so that they are the
 * first whole millisecond at which bucket4j admits, never one early.
 *
 * @param state the state after the operation (refilled to {@code nowNanos})
 * @param nowNanos the time the operation read
 */
record BucketReading(BucketState state, long nowNanos, BucketMapping mapping) {
  private static final long NANOS_PER_MILLI = 1_000_000;
  /** A wait that stands for "never" (about 146 years), far enough from overflowing epoch nanoseconds. */
  static final long NEVER = Long.MAX_VALUE / 2 / NANOS_PER_MILLI;

  static BucketReading of(VerboseResult<?> result, BucketMapping mapping) {
    return new BucketReading(result.getState(), result.getOperationTimeNanos(), mapping);
  }

  private Bandwidth bandwidth() {
    return state.getConfiguration().getBandwidths()[0];
  }

  /** Whole tokens now. */
  long tokens() {
    return state.getCurrentSize(0);
  }

  /** Units now, the refilled part of the next token included: exact, may be negative in debt. */
  double units() {
    double fraction = (double) state.getRoundingError(0) / bandwidth().getRefillPeriodNanos();
    return mapping.units(state.getCurrentSize(0) + fraction);
  }

  /** This bucket as it would be with {@code tokens} taken now, even into debt. */
  BucketReading taking(long tokens) {
    BucketState taken = state.copy();
    taken.consume(tokens);
    return new BucketReading(taken, nowNanos, mapping);
  }

  /** Milliseconds from now until the bucket is full (0 if it is). */
  long millisUntilFull() {
    return millisUntilFull(state.calculateFullRefillingTime(nowNanos));
  }

  /** {@link #millisUntilFull()} from a probe's {@code nanosToWaitForReset}. */
  long millisUntilFull(long estimateNanos) {
    return millisUntil(bandwidth().getCapacity(), estimateNanos);
  }

  /** {@link #millisUntil(long, long)} from bucket4j's estimate for the state. */
  long millisUntil(long tokens) {
    return tokens() >= tokens ? 0
        : millisUntil(tokens, state.calculateDelayNanosAfterWillBePossibleToConsume(tokens, nowNanos, false));
  }

  /**
   * The first whole millisecond from now at which the bucket holds {@code tokens}, if nothing else
   * happens (0 if it does now). bucket4j's estimate (a probe's nanoseconds to wait, which count
   * from the stored refill time and are rounded down) is the starting point; a copy of the state
   * refilled to a candidate time says whether it is reached there (levels never fall as time
   * passes), so a clock that went back, whose refill starts again only at the stored time, gets
   * the full wait.
   */
  long millisUntil(long tokens, long estimateNanos) {
    if (tokens() >= tokens) {
      return 0;
    }
    long estimate = Math.max(0, estimateNanos);
    long start = estimate >= NEVER * NANOS_PER_MILLI ? NEVER : ceilMillis(estimate);
    return Waits.first(millis -> reaches(millis, tokens), start, NEVER);
  }

  private boolean reaches(long millis, long tokens) {
    BucketState later = state.copy();
    later.refillAllBandwidth(nowNanos + millis * NANOS_PER_MILLI);
    return later.getCurrentSize(0) >= tokens;
  }

  private static long ceilMillis(long nanos) {
    return nanos / NANOS_PER_MILLI + (nanos % NANOS_PER_MILLI > 0 ? 1 : 0);
  }
}

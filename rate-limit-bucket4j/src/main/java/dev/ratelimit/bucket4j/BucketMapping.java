package dev.ratelimit.bucket4j;

import dev.ratelimit.FixedWindow;
import dev.ratelimit.Limit;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.algorithm.LimitKind;
import dev.ratelimit.internal.SpecText;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;

/**
 * How one limit becomes a bucket4j bucket. bucket4j counts whole tokens, so one unit of the limit
 * is {@code tokensPerUnit} tokens (a power of ten, at most a million): counts such as 0.25 or 0.1
 * are whole numbers of tokens and are decided exactly. A token bucket refills greedily, a fixed
 * window intervally aligned to its windows; a bucket starts full, as a cold key does.
 *
 * @param tokensPerUnit tokens per unit of the limit: the finest count this bucket can tell apart
 * @param capacityTokens the capacity in tokens
 * @param maxReservedTokens how deep a reservation may go, in tokens; {@link Long#MAX_VALUE}: unbounded
 * @param refillTokens tokens added per refill period (greedily, or at each window boundary)
 * @param refillPeriodNanos the refill period: the window for a fixed window; for a token bucket
 *     the rate reduced to its lowest terms, so that bucket4j's integer arithmetic never overflows
 * @param windowMillis the window length of a fixed window; 0 for a token bucket
 * @param fingerprint what this mapping looks like, so that state of another mapping is never read
 */
record BucketMapping(Limit limit, long tokensPerUnit, long capacityTokens, long maxReservedTokens,
    long refillTokens, long refillPeriodNanos, long windowMillis, String fingerprint) {

  /** Finer than any count people use, coarse enough for capacities up to 9 billion units. */
  static final long MAX_TOKENS_PER_UNIT = 1_000_000;
  /** Token counts stay below this so that they convert to doubles exactly. */
  private static final long EXACT_IN_DOUBLE = 1L << 53;
  private static final long NANOS_PER_MILLI = 1_000_000;

  /**
   * The mapping of a limit.
   *
   * @throws IllegalArgumentException for kinds other than token bucket and fixed window, a lease, and for
   *     rates above one token per nanosecond (bucket4j's highest)
   */
  static BucketMapping of(Limit limit) {
    if (!(limit instanceof TokenBucket) && !(limit instanceof FixedWindow)) {
      throw new IllegalArgumentException("the bucket4j store runs token-bucket and fixed-window limits; "
          + limit.kind() + " is not supported (" + limit + ")");
    }
    if (limit.lease() != 0) {
      // a lease is units taken from the shared state ahead; bucket4j's optimizations (batching,
      // delayed sync) go on the ProxyManager, and those that decide locally are estimates
      throw new IllegalArgumentException("the bucket4j store has no leases: lease=" + SpecText.number(limit.lease())
          + " is for the Redis store (rate-limit-redis); drop it, or batch on the ProxyManager with bucket4j's "
          + "Optimizations.batching() (" + limit + ")");
    }
    long periodMillis = period(limit).toMillis();
    long periodNanos = Math.multiplyExact(periodMillis, NANOS_PER_MILLI);
    double deepest = limit.capacity() + (Double.isInfinite(limit.maxReserved()) ? 0 : limit.maxReserved());
    long n = MAX_TOKENS_PER_UNIT;
    // bucket4j refills at most one token per nanosecond; token counts must stay exact
    while (n > 1 && (limit.rate() * n > periodNanos || deepest * n >= EXACT_IN_DOUBLE
        || !refillFits(limit, n, periodNanos))) {
      n /= 10;
    }
    if (limit.rate() * n > periodNanos) {
      throw new IllegalArgumentException("the bucket4j store can't run " + limit + ": bucket4j refills at most "
          + "one token per nanosecond, and this rate is " + limit.rate() / periodNanos + " units per nanosecond");
    }
    long capacity = Math.max(1, toTokens(limit.capacity(), n, false));
    long maxReserved = Double.isInfinite(limit.maxReserved()) ? Long.MAX_VALUE : toTokens(limit.maxReserved(), n, false);
    long rate = Math.max(1, toTokens(limit.rate(), n, false));
    long windowMillis = limit instanceof FixedWindow ? periodMillis : 0;
    long refillTokens = rate;
    long refillPeriod = periodNanos;
    if (windowMillis == 0) {
      long gcd = BigInteger.valueOf(rate).gcd(BigInteger.valueOf(periodNanos)).longValueExact();
      refillTokens = rate / gcd;
      refillPeriod = periodNanos / gcd;
    }
    String shape = limit.kind() + " " + limit.rate() + "/" + periodMillis + "ms cap " + limit.capacity()
        + (limit instanceof FixedWindow w ? (w.randomPhase() ? " phase=random" : " start=" + w.start().toEpochMilli()) : "")
        + " x" + n;
    String fingerprint = String.format("%08x", shape.hashCode());
    return new BucketMapping(limit, n, capacity, maxReserved, refillTokens, refillPeriod, windowMillis, fingerprint);
  }

  /**
   * Whether a greedy refill of this limit at this scale stays in bucket4j's exact integer
   * arithmetic: it multiplies the tokens per period by up to one period of nanoseconds.
   */
  private static boolean refillFits(Limit limit, long n, long periodNanos) {
    if (!(limit instanceof TokenBucket)) {
      return true; // whole windows: bucket4j's arithmetic is exact for them
    }
    long rate = Math.max(1, toTokens(limit.rate(), n, false));
    long gcd = BigInteger.valueOf(rate).gcd(BigInteger.valueOf(periodNanos)).longValueExact();
    return Math.multiplyHigh(rate / gcd, periodNanos / gcd) == 0 && (rate / gcd) * (periodNanos / gcd) < Long.MAX_VALUE / 2;
  }

  private static Duration period(Limit limit) {
    return limit instanceof TokenBucket t ? t.period() : ((FixedWindow) limit).period();
  }

  boolean fixedWindow() {
    return windowMillis > 0;
  }

  /**
   * Units as whole tokens: exact when the units are a multiple of a token (within float noise),
   * otherwise rounded up (what is consumed: never more admitted than asked) or down (what is given
   * back: never more than was taken).
   */
  long tokens(double units, boolean roundUp) {
    return toTokens(units, tokensPerUnit, roundUp);
  }

  private static long toTokens(double units, long tokensPerUnit, boolean roundUp) {
    double tokens = units * tokensPerUnit;
    double nearest = Math.rint(tokens);
    if (Math.abs(tokens - nearest) <= 1e-9 * Math.max(1, Math.abs(tokens))) {
      return (long) nearest;
    }
    return (long) (roundUp ? Math.ceil(tokens) : Math.floor(tokens));
  }

  /** Tokens as units. */
  double units(double tokens) {
    return tokens / tokensPerUnit;
  }

  /** The capacity as the decisions report it: the limit's, not the rounded token count. */
  double capacity() {
    return limit.capacity();
  }

  /**
   * The longest wait bucket4j may accept for a reservation of this limit, from the caller's wait
   * and from {@code maxReserved}: bucket4j bounds reservations by their wait, not their depth.
   * The bound admits every reservation within {@code maxReserved}; the few it admits beyond (by
   * less than a nanosecond's refill for a token bucket, or within the last window's refill for a
   * fixed window) are given back by the store. 0: no wait at all (a plain consumption).
   */
  long reservationBoundNanos(long maxWaitMillis) {
    long caller = maxWaitMillis >= Long.MAX_VALUE / NANOS_PER_MILLI ? Long.MAX_VALUE : maxWaitMillis * NANOS_PER_MILLI;
    return Math.min(caller, maxReservedWaitNanos());
  }

  private long maxReservedWaitNanos() {
    if (maxReservedTokens == Long.MAX_VALUE) {
      return Long.MAX_VALUE;
    }
    BigInteger wait;
    if (fixedWindow()) {
      // the windows that repay the whole debt; the next boundary is at most one window away
      long windows = (maxReservedTokens + refillTokens - 1) / refillTokens;
      wait = BigInteger.valueOf(windows).multiply(BigInteger.valueOf(refillPeriodNanos));
    } else {
      wait = BigInteger.valueOf(maxReservedTokens).multiply(BigInteger.valueOf(refillPeriodNanos))
          .divide(BigInteger.valueOf(refillTokens));
    }
    return wait.bitLength() < 63 ? wait.longValue() : Long.MAX_VALUE;
  }

  /** The bucket configuration for a key (keys differ only with {@code phase=random}). */
  BucketConfiguration configuration(String key) {
    return BucketConfiguration.builder().addLimit(bandwidth(key)).build();
  }

  /** Whether every key has the same configuration. */
  boolean sameForEveryKey() {
    return !(limit instanceof FixedWindow w && w.randomPhase());
  }

  private Bandwidth bandwidth(String key) {
    if (limit instanceof FixedWindow window) {
      // bucket4j's windows are aligned to the first refill; the earliest window start after the
      // epoch aligns them all, before and after the configured start
      Instant firstRefill = Instant.ofEpochMilli(LimitKind.of(window).windowOffset(window, key));
      return Bandwidth.builder().capacity(capacityTokens)
          .refillIntervallyAligned(refillTokens, Duration.ofMillis(windowMillis), firstRefill).build();
    }
    return Bandwidth.builder().capacity(capacityTokens)
        .refillGreedy(refillTokens, Duration.ofNanos(refillPeriodNanos)).build();
  }
}

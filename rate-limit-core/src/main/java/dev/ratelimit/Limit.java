package dev.ratelimit;

import java.time.Duration;
import java.util.Optional;

/**
 * How many units a key may spend over time: one of six kinds, each an immutable record that
 * checks its own values. Its {@code toString()} gives the spec (docs/design.md §5) that
 * {@link #parse} reads back.
 *
 * <pre>{@code
 * Limit api = Limit.parse("token-bucket rate=100 period=1m capacity=20");
 * Limit same = Limit.tokenBucket(100, Duration.ofMinutes(1)).withCapacity(20);
 * }</pre>
 *
 * @since 1.0
 */
public sealed interface Limit permits TokenBucket, Gcra, FixedWindow, SlidingWindow, SlidingLog, Quota {

  /** The kind as written in a spec: {@code token-bucket}, {@code gcra}, ... */
  String kind();

  /** Units admitted per period. */
  double rate();

  /** The most units that can be spent at once. */
  double capacity();

  /**
   * How deep {@code reserve} may go into debt: unbounded by default for the kinds that support
   * reservations, 0 for the others.
   */
  default double maxReserved() {
    return 0;
  }

  /** Whether {@code reserve} and {@code acquire} may take units ahead of time. */
  default boolean reservable() {
    return false;
  }

  /**
   * Units a node of a remote store takes ahead per lease ({@code lease=N}, token bucket and GCRA;
   * docs/design.md §4.3.3); 0: none, each request is decided by the store.
   */
  default double lease() {
    return 0;
  }

  /** How many sub-keys a hot key is split into (1: not sharded). */
  default int shards() {
    return 1;
  }

  /** This limit's policy when a remote store is unavailable; {@code null} means the store's. */
  FailurePolicy failure();

  /**
   * {@link LimitMode#ENFORCE} (the default) or {@link LimitMode#SHADOW}: computed and charged as
   * if enforced, but never denying ({@code mode=shadow} in a spec).
   */
  LimitMode mode();

  /** Whether this limit only watches ({@code mode=shadow}). */
  default boolean shadow() {
    return mode() == LimitMode.SHADOW;
  }

  /**
   * How long an empty key takes to be full again, if nothing else happens: capacity / rate
   * periods for a token bucket or GCRA, whole windows for a fixed window, the period for the
   * sliding kinds; empty for a calendar quota, whose periods differ in length.
   */
  Optional<Duration> refillTime();

  /**
   * The largest count a {@code limit} or {@code check} could ever admit: the capacity, or for a
   * sharded limit what two shards hold (a request draws on two at most). Larger counts are refused.
   */
  default double largestCount() {
    return shards() > 1 ? Math.min(capacity(), 2 * capacity() / shards()) : capacity();
  }

  /** The largest count a {@code reserve} could ever admit: capacity plus maxReserved, on one shard when sharded. */
  default double largestReservation() {
    return (capacity() + maxReserved()) / shards();
  }

  /** Parses a limit spec such as {@code "gcra rate=5 period=1s capacity=10"} or {@code "10/1m"}. */
  static Limit parse(String spec) {
    return SpecParser.parse(spec);
  }

  static TokenBucket tokenBucket(double rate, Duration period) {
    return new TokenBucket(rate, period, rate, Double.POSITIVE_INFINITY, 1, null);
  }

  static Gcra gcra(double rate, Duration period) {
    return new Gcra(rate, period, rate, Double.POSITIVE_INFINITY, 1, null);
  }

  static FixedWindow fixedWindow(double rate, Duration period) {
    return new FixedWindow(rate, period, rate, Double.POSITIVE_INFINITY, 1, FixedWindow.EPOCH, false, null);
  }

  static SlidingWindow slidingWindow(double rate, Duration period) {
    return new SlidingWindow(rate, period, SlidingWindow.DEFAULT_BUCKETS, null);
  }

  static SlidingLog slidingLog(double rate, Duration period) {
    return new SlidingLog(rate, period, null);
  }

  static Quota quota(double rate, Quota.Cadence cadence) {
    return new Quota(rate, cadence, java.time.ZoneOffset.UTC, null);
  }
}

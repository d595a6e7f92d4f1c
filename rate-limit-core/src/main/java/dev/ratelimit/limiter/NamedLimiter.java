package dev.ratelimit.limiter;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * The decisions on one named limit of a {@link RateLimiter}, under one plan: every operation on a
 * named limit goes through here, so that a limit's name, a plan and a key (all strings) are
 * given in separate steps and can't be swapped.
 *
 * <pre>{@code
 * NamedLimiter api = limiter.named("api");            // the name looked up once
 * Decision decision = api.limit(clientId);
 * if (!api.onPlan(user.plan()).admit(user.id())) { ... }
 * }</pre>
 *
 * <p>An immutable value, cheap to make and safe to share between threads and to keep in a field:
 * it holds what the limiter holds for its name and plan, and each call reads the limit in force
 * then, so it follows {@link #replace} at runtime (from any {@code NamedLimiter} of the same
 * name and plan). The key may be empty: one global bucket for the limit. A count must be a finite
 * number, 0 or more, and within what the limit could ever admit; anything else is an
 * {@link IllegalArgumentException} naming the limit, the count and the bound.
 *
 * @since 1.0
 */
public final class NamedLimiter {
  private final RateLimiter limiter;
  private final String name;
  /** {@code null}: the default plan. */
  private final String plan;
  /** The default plan's slot: the name's plans, and what {@link #reset} forgets. */
  private final Slot named;
  /** The slot in force under {@link #plan}: the default one for a plan not configured. */
  private final Slot slot;

  NamedLimiter(RateLimiter limiter, String name, String plan, Slot named, Slot slot) {
    this.limiter = limiter;
    this.name = name;
    this.plan = plan;
    this.named = named;
    this.slot = slot;
  }

  /** The limit's name. */
  public String name() {
    return name;
  }

  /** The plan whose spec applies, or {@code null} for the default plan. */
  public String plan() {
    return plan;
  }

  /**
   * This limit under a plan's spec (a tier such as {@code pro}, {@link RateLimiter.Builder#onPlan}).
   * {@code null} is the default plan, since front ends evaluate plans that may be absent (a user
   * without one); so is a plan not configured for this limit, which is logged once and decided on
   * the default plan's spec. A plan name may come from request data: the log lines of unknown
   * ones are bounded.
   *
   * @param plan the plan's name, or {@code null} for the default plan
   */
  public NamedLimiter onPlan(String plan) {
    if (Objects.equals(plan, this.plan)) {
      return this;
    }
    return new NamedLimiter(limiter, name, plan, named, named.resolve(plan, limiter.unknownPlans()));
  }

  /** Consumes one unit if admitted; a denial changes nothing. */
  public Decision limit(String key) {
    return limit(key, 1);
  }

  /** Consumes {@code count} units if admitted; a denial changes nothing. */
  public Decision limit(String key, double count) {
    return slot.bound.apply(RateLimiter.key(key), Operation.LIMIT, count, 0);
  }

  /**
   * Whether one unit is admitted (and so taken): {@code limit(key).allowed()}, decided exactly
   * the same and heard by listeners the same, for code that reads nothing else of the decision.
   * The in-memory store then skips working out the remaining units and waits of an admission.
   */
  public boolean admit(String key) {
    return admit(key, 1);
  }

  /** {@link #admit(String)} for {@code count} units. */
  public boolean admit(String key, double count) {
    return slot.bound.admit(RateLimiter.key(key), count);
  }

  /** The decision {@link #limit(String, double)} would make, consuming nothing. */
  public Decision check(String key, double count) {
    return slot.bound.apply(RateLimiter.key(key), Operation.CHECK, count, 0);
  }

  /**
   * Consumes now, even into debt down to the limit's {@code maxReserved}; the decision's
   * {@code retryAfter} is how long to wait before doing the work. Token bucket, GCRA and fixed
   * window only.
   */
  public Decision reserve(String key, double count) {
    return slot.bound.apply(RateLimiter.key(key), Operation.RESERVE, count, Long.MAX_VALUE);
  }

  /**
   * Waits for its turn, at most {@code maxWait}: reserves and sleeps until the reservation is
   * due, or gives up at once, consuming nothing, when the wait would be longer. Kinds without
   * reservations retry when the decision says, until {@code maxWait} is spent.
   *
   * @return the admitting decision, or the denial when the wait would exceed {@code maxWait}
   * @throws InterruptedException if interrupted while waiting; the reservation is given back
   */
  public Decision acquire(String key, double count, Duration maxWait) throws InterruptedException {
    return limiter.acquire(slot.bound, key, count, maxWait);
  }

  /**
   * Takes {@code count} units now, to be kept or given back once the outcome is known
   * ({@link PendingCharge#settle}), or settled with what the call really cost
   * ({@link PendingCharge#settleActual}): charging by outcome, exact under concurrency.
   */
  public PendingCharge charge(String key, double count) {
    return slot.bound.charge(RateLimiter.key(key), count);
  }

  /**
   * Takes {@code count} units whatever the key holds: units already spent, charged after the
   * fact. The key may go into debt, so that later calls wait, down to one capacity (or
   * {@code maxReserved}, when finite and deeper); the rest is not taken (docs/design.md §2.4).
   * To charge an estimate first and settle it later, use {@link #charge} and
   * {@link PendingCharge#settleActual}.
   *
   * @param count a finite number, 0 or more; any size (what it takes is bounded)
   * @return the key's state afterwards, as a check for 0 units (not allowed while in debt)
   */
  public Decision take(String key, double count) {
    return slot.bound.take(RateLimiter.key(key), count);
  }

  /**
   * Gives back units that were taken but not used, never above the capacity.
   *
   * @return the key's state afterwards (a check for 0 units)
   */
  public Decision refund(String key, double count) {
    return slot.bound.refund(RateLimiter.key(key), count);
  }

  /** Forgets the key under every plan of the limit, whichever plan this is on: it is full again. */
  public void reset(String key) {
    limiter.reset(name, named, key);
  }

  /** {@link #limit(String, double)} without blocking, for callers on an event loop. */
  public CompletionStage<Decision> limitAsync(String key, double count) {
    return slot.bound.applyAsync(RateLimiter.key(key), Operation.LIMIT, count, 0);
  }

  /** {@link #check} without blocking. */
  public CompletionStage<Decision> checkAsync(String key, double count) {
    return slot.bound.applyAsync(RateLimiter.key(key), Operation.CHECK, count, 0);
  }

  /** {@link #reserve} without blocking. */
  public CompletionStage<Decision> reserveAsync(String key, double count) {
    return slot.bound.applyAsync(RateLimiter.key(key), Operation.RESERVE, count, Long.MAX_VALUE);
  }

  /** {@link #acquire} without blocking a thread: completes when the turn has come. */
  public CompletionStage<Decision> acquireAsync(String key, double count, Duration maxWait) {
    return limiter.acquireAsync(slot.bound, key, count, maxWait);
  }

  /** {@link #charge} without blocking. */
  public CompletionStage<PendingCharge> chargeAsync(String key, double count) {
    return slot.bound.chargeAsync(RateLimiter.key(key), count);
  }

  /** {@link #take} without blocking. */
  public CompletionStage<Decision> takeAsync(String key, double count) {
    return slot.bound.takeAsync(RateLimiter.key(key), count);
  }

  /** {@link #refund} without blocking. */
  public CompletionStage<Decision> refundAsync(String key, double count) {
    return slot.bound.refundAsync(RateLimiter.key(key), count);
  }

  /** {@link #reset} without blocking, under every plan of the limit. */
  public CompletionStage<Void> resetAsync(String key) {
    return limiter.resetAsync(name, named, key);
  }

  /** One unit of this limit and plan for {@code key}, as a part of {@link RateLimiter#limitAll}. */
  public Call call(String key) {
    return call(key, 1);
  }

  /**
   * {@code count} units of this limit and plan for {@code key}, as a part of an all-or-nothing
   * {@link RateLimiter#limitAll} or {@link RateLimiter#acquireAll} on the limiter it came from.
   */
  public Call call(String key, double count) {
    return new Call(this, key, count);
  }

  /**
   * The limit's heaviest keys over its recent windows, heaviest first, as a heavy-hitters sketch
   * counts them in bounded memory (docs/design.md §10.2): the units each key was admitted and
   * refused under any of the limit's plans, by {@code limit}, {@code admit}, {@code reserve},
   * {@code limitAll}, {@code charge} and {@code acquire} (checks take nothing and are not
   * counted), over the current window and the one before.
   *
   * @param max how many keys at most
   * @throws IllegalArgumentException for a negative {@code max}
   * @throws IllegalStateException when top keys are not tracked ({@link RateLimiter.Builder#trackTopKeys})
   */
  public List<TopKey> topKeys(int max) {
    return limiter.topKeys(name, max);
  }

  /**
   * Puts {@code spec} in force for this limit under this plan while the limiter serves.
   *
   * @return the limit it replaced
   * @throws dev.ratelimit.InvalidLimitSpecException for a bad spec; nothing changes
   * @see #replace(Limit)
   */
  public Limit replace(String spec) {
    return replace(Limit.parse(spec));
  }

  /**
   * Puts {@code limit} in force for this limit under this plan (the default plan when
   * {@link #plan()} is {@code null}) while the limiter serves. Each call reads the limit once, so
   * it is decided wholly by the old limit or wholly by the new. Keys keep their state when it
   * reads the same under both (only {@code mode} or {@code failure} changed); a token bucket, GCRA
   * or fixed window of the same kind carries each key's used units over, capped by the new
   * capacity; any other change starts every key fresh (docs/design.md §2.7).
   *
   * @return the limit it replaced
   * @throws IllegalArgumentException for a plan not configured for this limit
   * @throws dev.ratelimit.StoreUnavailableException when a store that shares changes between nodes can't take
   *     it (Redis with synced limits, docs/design.md §4.3.2); nothing changes
   * @throws IllegalStateException for a default plan whose state plans share, by a limit they
   *     can't carry over to (replace those plans first)
   */
  public Limit replace(Limit limit) {
    return limiter.replace(name, plan, limit);
  }

  /** The limit in force: read once per call. */
  BoundLimit bound() {
    return slot.bound;
  }

  RateLimiter limiter() {
    return limiter;
  }

  /** Equal when on the same limiter, limit and plan. */
  @Override
  public boolean equals(Object o) {
    return o instanceof NamedLimiter other && other.limiter == limiter && other.name.equals(name)
        && Objects.equals(other.plan, plan);
  }

  @Override
  public int hashCode() {
    return name.hashCode() * 31 + Objects.hashCode(plan);
  }

  @Override
  public String toString() {
    return "NamedLimiter[" + name + (plan == null ? "" : " on plan " + plan) + " = " + slot.bound.limit + "]";
  }

  /**
   * One part of an all-or-nothing {@link RateLimiter#limitAll} call: a named limit under a plan,
   * a key and a count. Made only by {@link NamedLimiter#call}, so its limit, plan and key are
   * never given by position; it belongs to the limiter that made it.
   *
   * @since 1.0
   */
  public static final class Call {
    private final NamedLimiter limiter;
    private final String key;
    private final double count;

    private Call(NamedLimiter limiter, String key, double count) {
      this.limiter = limiter;
      this.key = Objects.requireNonNull(key, "key (use \"\" for the limit's global bucket)");
      this.count = count;
    }

    /** The limit's name. */
    public String limit() {
      return limiter.name;
    }

    /** The plan whose spec applies, or {@code null} for the default plan. */
    public String plan() {
      return limiter.plan;
    }

    /** The key, as given. */
    public String key() {
      return key;
    }

    /** The units asked for. */
    public double count() {
      return count;
    }

    /** The limit and plan this call is on. */
    public NamedLimiter named() {
      return limiter;
    }

    /** Equal when on the same limiter, limit, plan, key and count. */
    @Override
    public boolean equals(Object o) {
      return o instanceof Call other && other.limiter.equals(limiter) && other.key.equals(key)
          && Double.compare(other.count, count) == 0;
    }

    @Override
    public int hashCode() {
      return (limiter.hashCode() * 31 + key.hashCode()) * 31 + Double.hashCode(count);
    }

    @Override
    public String toString() {
      return "Call[limit=" + limiter.name + (limiter.plan == null ? "" : ", plan=" + limiter.plan) + ", count="
          + count + "]"; // the key left out: often an address or a user id
    }
  }

  /**
   * One of a limit's heaviest keys over its recent windows ({@link #topKeys}), as
   * counted by a heavy-hitters sketch (docs/design.md §10.2): each number is counted since the key
   * entered the sketch, so it is never above the truth and short of it by at most
   * {@code uncounted}.
   *
   * @param key the key as the limiter bounded it (a key longer than 256 UTF-8 bytes is its
   *     {@code sha256:} digest)
   * @param units units admitted (taken, or reserved)
   * @param denied units refused (for a limit in {@code mode=shadow}: the units it would have
   *     refused)
   * @param uncounted the most units, admitted or refused, the key may have had in these windows
   *     that {@code units} and {@code denied} leave out; 0 while the sketch counts every key
   * @since 1.0
   */
  public record TopKey(String key, double units, double denied, double uncounted) {}
}

package dev.ratelimit.limiter;

import dev.ratelimit.Clock;
import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;
import dev.ratelimit.algorithm.LimitKind;
import dev.ratelimit.internal.Futures;
import dev.ratelimit.internal.SpecText;
import dev.ratelimit.store.KeySpace;
import dev.ratelimit.store.RateLimitStore.Charge;
import dev.ratelimit.store.RateLimitStore;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A limit bound to a store under its name: checks every count, then asks the store through the
 * limit's failure policy ({@link #space}); all-or-nothing calls charge the store's own space
 * ({@link #raw}), which the store can decide all at once.
 */
class BoundLimit {
  final String name;
  final Limit limit;
  final KeySpace space;
  final KeySpace raw;
  /** The guarded space, or {@code null} when the store never fails. */
  private final GuardedKeySpace guarded;
  /** Who hears of each decision; {@code null}: nobody, and reporting costs nothing. */
  private final ListenerCalls listener;
  /** The name decisions are reported under. */
  private final String reportedName;
  /** Where this limit's admitted and refused units per key are counted; {@code null}: not tracked. */
  private final TopKeys top;
  /** {@code mode=shadow}: never denies; see {@link #finish}. */
  final boolean shadow;
  /**
   * Whether {@link #admit} may ask the store for the answer alone: no listener hears the
   * decision, no shadow log reads it, no failure policy stands between (a guard decides by
   * the whole decision), and the key is not split into shards (decided across them by theirs).
   */
  private final boolean answerAlone;
  private final ShadowLog shadowLog;
  private final boolean reservable;
  private final double largestLimit;
  private final double largestReserve;
  private final double smallestCount;
  /** Whether a count of 1 passes {@link #check} for a limit or a check. */
  private final boolean oneFits;

  BoundLimit(Binding binding, String name, Limit limit, KeySpace previous) {
    this(binding, name, limit, limit, previous == null ? null : store -> store.rebind(previous, limit));
  }

  /**
   * @param stored the limit as the store keeps it (one shard's share, when sharded)
   * @param limit the limit as declared
   * @param placed how the store binds it when it takes over or shares another space's keys
   *     (replacing a limit, or another plan); {@code null}: bound anew under {@code name}
   */
  BoundLimit(Binding binding, String name, Limit stored, Limit limit,
      java.util.function.Function<RateLimitStore, KeySpace> placed) {
    this.name = name;
    this.limit = limit;
    this.raw = placed == null ? binding.store().bind(name, stored) : placed.apply(binding.store());
    this.space = binding.guard(raw, limit);
    this.guarded = space instanceof GuardedKeySpace g ? g : null;
    this.listener = binding.listener();
    this.reportedName = name.startsWith("~") ? limit.toString() : name;
    this.top = binding.topKeys(name);
    this.shadow = limit.shadow();
    this.shadowLog = shadow ? new ShadowLog(binding.clock()) : null;
    this.answerAlone = listener == null && !shadow && guarded == null && limit.shards() == 1;
    this.reservable = limit.reservable();
    this.largestLimit = limit.largestCount();
    this.largestReserve = limit.largestReservation();
    this.smallestCount = SMALLEST_COUNT * Math.max(1, limit.capacity());
    this.oneFits = 1 >= smallestCount && 1 <= largestLimit;
  }

  /** What binding a limit needs: the store, and how to guard it. */
  interface Binding {
    RateLimitStore store();

    /** The store's space behind the failure policy of {@code limit}. */
    KeySpace guard(KeySpace raw, Limit limit);

    /** The limiter's clock (for the shadow log's once a minute). */
    Clock clock();

    /**
     * All or nothing: on the store when it answers ({@code raw} charges), else charge by charge
     * through each limit's failure policy ({@code guarded}, the same charges on guarded spaces),
     * noting that in {@code report} when there is one.
     */
    CompletionStage<List<Decision>> limitAllAsync(List<Charge> raw, List<Charge> guarded, Report report);

    /**
     * All or nothing as {@link #limitAllAsync}, decided on the caller's thread (which waits for
     * the store).
     */
    List<Decision> limitAll(List<Charge> raw, List<Charge> guarded, Report report);

    /** Who hears of each decision, or {@code null}. */
    ListenerCalls listener();

    /** Where the limit stored under {@code name} counts its top keys, or {@code null}: not tracked. */
    TopKeys topKeys(String name);
  }

  static BoundLimit bind(Binding binding, String name, Limit limit) {
    return bind(binding, name, limit, null);
  }

  /** A limit taking the place of {@code previous} under the same name (or the first, when {@code null}). */
  static BoundLimit bind(Binding binding, String name, Limit limit, BoundLimit previous) {
    KeySpace before = previous == null || previous.limit.shards() != limit.shards() ? null : previous.raw;
    return limit.shards() > 1
        ? new ShardedLimit(binding, name, limit, before)
        : new BoundLimit(binding, name, limit, before);
  }

  /**
   * Another plan of {@code sibling}'s limit, on the same state per key when the two carry over
   * (one kind, not sharded, no random phase: docs/design.md §2.7); {@code null} when they don't, and
   * the plan keeps a state of its own.
   *
   * @throws UnsupportedOperationException from a store that can't share the state
   */
  static BoundLimit sharing(Binding binding, Limit limit, BoundLimit sibling) {
    if (!carriesOver(sibling.limit, limit)) {
      return null;
    }
    KeySpace shared = sibling.raw;
    return new BoundLimit(binding, sibling.name, limit, limit, store -> store.share(shared, limit));
  }

  /** Whether plans of these two limits share one state per key (§2.7). */
  static boolean carriesOver(Limit a, Limit b) {
    return a.shards() == 1 && b.shards() == 1 && LimitKind.carriesOver(a, b);
  }

  /**
   * The smallest count above 0, as a fraction of the capacity (at least 1): ten times the
   * float tolerance within which a level counts as reaching a request, so that a count this size
   * is charged (a smaller one on an empty bucket would be admitted by the tolerance and take
   * nothing, a million times over) and moves a state kept as a time on the store's timeline.
   */
  static final double SMALLEST_COUNT = 1e-11;

  /**
   * Refuses what can never be decided: a count that is not a finite number ≥ 0, one above what
   * the limit can ever admit, one above 0 too small to charge, a reservation on a kind without
   * them.
   */
  final void check(Operation op, double count) {
    // one unit, the usual request, fits this limit or not once and for all: one comparison here
    // instead of the seven below, which stay out of line (and so out of the caller's inlining)
    if (count != 1 || op == Operation.RESERVE || !oneFits) {
      checkAny(op, count);
    }
  }

  private void checkAny(Operation op, double count) {
    if (!(count >= 0) || Double.isInfinite(count)) {
      throw new IllegalArgumentException(
          "count must be a finite number, 0 or more, but was " + count + " (limit '" + name + "')");
    }
    if (count > 0 && count < smallestCount) {
      throw new IllegalArgumentException("count " + count + " is below the smallest count above 0, "
          + SpecText.message(smallestCount) + " (1e-11 of the capacity, at least 1e-11), of limit '" + name
          + "': so small a count would not be charged");
    }
    if (op == Operation.RESERVE && !reservable) {
      throw new UnsupportedOperationException("limit '" + name + "' is a " + limit.kind()
          + ", which has no reservations; reserve and acquire with a wait work on token-bucket, gcra and fixed-window");
    }
    double largest = op == Operation.RESERVE ? largestReserve : largestLimit;
    if (count > largest) {
      throw new IllegalArgumentException("count " + SpecText.message(count) + " is above "
          + (op == Operation.RESERVE ? "capacity + maxReserved, " : "the capacity, ") + SpecText.message(largest)
          + ", of limit '" + name + "': it could never be admitted");
    }
  }

  /** One request's decision, reported to the listener once, however many store calls it took. */
  final Decision apply(String key, Operation op, double count, long maxWait) {
    check(op, count);
    if (listener == null) {
      Decision decision = noted(key, op, count, decide(key, op, count, maxWait, null));
      return shadow ? finish(key, decision, null) : decision;
    }
    Report report = new Report();
    return finish(key, noted(key, op, count, decide(key, op, count, maxWait, report)), report);
  }

  /** Whether a {@code limit} of {@code count} units is admitted: {@link #apply}'s answer, decided the same. */
  final boolean admit(String key, double count) {
    if (!answerAlone) {
      return apply(key, Operation.LIMIT, count, 0).allowed();
    }
    check(Operation.LIMIT, count);
    boolean admitted = space.admit(key, count);
    if (top != null) {
      top.record(key, count, admitted);
    }
    return admitted;
  }

  final CompletionStage<Decision> applyAsync(String key, Operation op, double count, long maxWait) {
    check(op, count);
    if (listener == null) {
      CompletionStage<Decision> decision = decideAsync(key, op, count, maxWait, null);
      if (top != null) {
        decision = decision.thenApply(d -> noted(key, op, count, d));
      }
      return shadow ? decision.thenApply(d -> finish(key, d, null)) : decision;
    }
    Report report = new Report();
    return listener.after(decideAsync(key, op, count, maxWait, report),
        decision -> finish(key, noted(key, op, count, decision), report));
  }

  /**
   * Takes {@code count} units up front (a {@code limit}), to be settled on the outcome; knows
   * whether units were really taken (not by a shadow limit's would-be denial, nor by the
   * {@code open} policy while the store is down).
   */
  final PendingCharge charge(String key, double count) {
    check(Operation.LIMIT, count);
    Report report = new Report();
    return pending(key, count, decide(key, Operation.LIMIT, count, 0, report), report);
  }

  /** {@link #charge} without blocking: the charge once the store has decided. */
  final CompletionStage<PendingCharge> chargeAsync(String key, double count) {
    check(Operation.LIMIT, count);
    Report report = new Report();
    CompletionStage<Decision> decided = decideAsync(key, Operation.LIMIT, count, 0, report);
    // the listener hears it where it hears every asynchronous decision, never on the store's threads
    return listener == null ? decided.thenApply(decision -> pending(key, count, decision, report))
        : listener.after(decided, decision -> pending(key, count, decision, report));
  }

  /** A charge's decision as its caller gets it, and whether its units were really taken. */
  private PendingCharge pending(String key, double count, Decision decided, Report report) {
    Decision decision = noted(key, Operation.LIMIT, count, decided);
    boolean taken = decision.allowed() && report.fallback(policy()) != FailurePolicy.OPEN;
    return new PendingCharge(this, key, count, finish(key, decision, listener == null ? null : report), taken);
  }

  /**
   * Takes {@code count} units whatever the key holds ({@link Operation#TAKE}): units already
   * spent. A settlement, not a decision: not reported, as a refund is not.
   */
  Decision take(String key, double count) {
    checkAmount("take", count);
    return decide(key, Operation.TAKE, count, 0, null);
  }

  CompletionStage<Decision> takeAsync(String key, double count) {
    checkAmount("take", count);
    return decideAsync(key, Operation.TAKE, count, 0, null);
  }

  /** The decision on the store, or by the failure policy (noted in {@code report}, if any). */
  Decision decide(String key, Operation op, double count, long maxWait, Report report) {
    return decideOnKey(key, op, count, maxWait, report);
  }

  CompletionStage<Decision> decideAsync(String key, Operation op, double count, long maxWait, Report report) {
    return on(false, key, op, count, maxWait, report);
  }

  /**
   * One request on one key of the guarded space, noting a policy decision in {@code report}:
   * with {@code waiting}, decided now on the caller's thread, which waits for the store as a
   * synchronous call does (a store may bound what it queues for callers that don't wait, never
   * for those that do); else as the store answers.
   */
  final CompletionStage<Decision> on(boolean waiting, String key, Operation op, double count, long maxWait,
      Report report) {
    if (waiting) {
      return Futures.completed(() -> decideOnKey(key, op, count, maxWait, report));
    }
    return guarded != null
        ? guarded.applyAsync(key, op, count, maxWait, report)
        : space.applyAsync(key, op, count, maxWait);
  }

  private Decision decideOnKey(String key, Operation op, double count, long maxWait, Report report) {
    return guarded != null ? guarded.apply(key, op, count, maxWait, report) : space.apply(key, op, count, maxWait);
  }

  /**
   * {@code decision}, its units counted in the limit's top keys when they are tracked: admitted
   * or refused as the store (or the failure policy) decided, so a shadow limit's would-be denial
   * counts as refused. A check takes nothing and is not counted.
   */
  final Decision noted(String key, Operation op, double count, Decision decision) {
    if (top != null && op != Operation.CHECK) {
      top.record(key, count, decision.allowed());
    }
    return decision;
  }

  /** One call of an all-or-nothing call, its units counted in the limit's top keys when tracked. */
  final void noted(NamedLimiter.Call call, Decision decision) {
    if (top != null) {
      top.record(RateLimiter.key(call.key()), call.count(), decision.allowed());
    }
  }

  /**
   * The decision as the caller gets it: a shadow limit's would-be denial (or wait) becomes an
   * admission, logged at most once a minute; then tells the listener, if any. Nothing a listener
   * throws leaves here ({@link ListenerCalls#tell}): the decision, and the units it took, stand.
   */
  final Decision finish(String key, Decision decision, Report report) {
    boolean shadowDenied = shadow && (!decision.allowed() || decision.retryAfterMillis() > 0);
    Decision given = decision;
    if (shadowDenied) {
      given = new Decision(true, decision.remaining(), decision.limit(), 0, decision.resetAfterMillis());
      shadowLog.wouldDeny(reportedName, key, decision);
    }
    if (listener != null) {
      listener.tell(reportedName, given, report == null ? null : report.fallback(policy()), shadowDenied);
    }
    return given;
  }

  /** The failure policy around this limit's store, or {@code null} when the store never fails. */
  final FailurePolicy policy() {
    return guarded != null ? guarded.policy() : null;
  }

  void reset(String key) {
    space.reset(key);
  }

  CompletionStage<Void> resetAsync(String key) {
    return space.resetAsync(key);
  }

  Decision refund(String key, double count) {
    checkAmount("refund", count);
    return space.refund(key, count);
  }

  CompletionStage<Decision> refundAsync(String key, double count) {
    checkAmount("refund", count);
    return space.refundAsync(key, count);
  }

  /**
   * Refuses a count given back or taken whatever the key holds (a refund, a take, a charge's
   * actual count) that is not a finite number ≥ 0; any such count is accepted, as what it moves
   * is bounded by the capacity (a refund) or the debt bound (a take).
   */
  final void checkAmount(String what, double count) {
    if (!(count >= 0) || Double.isInfinite(count)) {
      throw new IllegalArgumentException(what + " count must be a finite number, 0 or more, but was " + count
          + " (limit '" + name + "')");
    }
  }

  /** The store charges for one part of an all-or-nothing call. */
  List<Charge> charges(String key, double count) {
    check(Operation.LIMIT, count);
    return List.of(new Charge(raw, key, count));
  }

  /** This call's decision from the decisions of its charges. */
  Decision combine(List<Decision> decisions) {
    return decisions.get(0);
  }

  @Override
  public String toString() {
    return name + " = " + limit;
  }
}

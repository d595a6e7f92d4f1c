package dev.ratelimit;

import dev.ratelimit.internal.LongKeys;
import dev.ratelimit.store.InMemoryStore;
import dev.ratelimit.store.KeySpace;
import dev.ratelimit.store.Operation;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.RateLimitStore.Charge;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import java.util.regex.Pattern;

/**
 * Decisions on named limits, per key. Thread-safe; build one per application.
 *
 * <pre>{@code
 * RateLimiter limiter = RateLimiter.builder()
 *     .limit("api", "token-bucket rate=100 period=1m")
 *     .limit("login", "fixed-window rate=5 period=15m")
 *     .build();                                  // in-memory store, system clock
 *
 * Decision decision = limiter.limit("api", clientAddress, 1);
 * if (!decision.allowed()) { ... decision.retryAfter() ... }
 * }</pre>
 *
 * <p>The key may be empty: one global bucket for the limit. A count must be a finite number, 0 or
 * more, and within what the limit could ever admit; anything else is an
 * {@link IllegalArgumentException} naming the limit, the count and the bound.
 */
public final class RateLimiter implements AutoCloseable {
  private static final Pattern NAME = Pattern.compile("[a-z0-9-]+");

  private final Clock clock;
  private final RateLimitStore store;
  private final FailurePolicy storeFailure;
  private final StoreHealth health;
  private final FailureGuard guard;
  /** {@code null} when nobody listens: then reporting is one null check per decision. */
  private final DecisionListener listener;
  /** Where limits with the {@code local} policy decide while the store is down; made on first need. */
  private volatile InMemoryStore localStore;
  /** Looked up on every call: a plain hash map, never changed after construction. */
  private final Map<String, BoundLimit> named;
  private final Map<String, Limit> limits;
  private final Map<Limit, BoundLimit> adHoc = new ConcurrentHashMap<>();

  private RateLimiter(Builder builder) {
    this.clock = builder.clock;
    this.store = builder.store != null ? builder.store : new InMemoryStore(clock);
    this.storeFailure = builder.storeFailure;
    this.health = new StoreHealth(clock, builder.storeRetry.toMillis());
    this.guard = new FailureGuard(health);
    this.listener = builder.listener;
    Map<String, BoundLimit> bound = new LinkedHashMap<>();
    builder.limits.forEach((name, limit) -> bound.put(name, BoundLimit.bind(binding(), name, limit)));
    this.named = new HashMap<>(bound);
    this.limits = Collections.unmodifiableMap(new LinkedHashMap<>(builder.limits));
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Consumes one unit if admitted; a denial changes nothing. */
  public Decision limit(String name, String key) {
    return limit(name, key, 1);
  }

  /** Consumes {@code count} units if admitted; a denial changes nothing. */
  public Decision limit(String name, String key, double count) {
    return bound(name).apply(key(key), Operation.LIMIT, count, 0);
  }

  /** The decision {@link #limit} would make, consuming nothing. */
  public Decision check(String name, String key, double count) {
    return bound(name).apply(key(key), Operation.CHECK, count, 0);
  }

  /**
   * Consumes now, even into debt down to the limit's {@code maxReserved}; the decision's
   * {@code retryAfter} is how long to wait before doing the work. Token bucket, GCRA and fixed
   * window only.
   */
  public Decision reserve(String name, String key, double count) {
    return bound(name).apply(key(key), Operation.RESERVE, count, Long.MAX_VALUE);
  }

  /**
   * Waits for its turn, at most {@code maxWait}: reserves and sleeps until the reservation is
   * due, or gives up at once, consuming nothing, when the wait would be longer. Kinds without
   * reservations retry when the decision says, until {@code maxWait} is spent.
   *
   * @return the admitting decision, or the denial when the wait would exceed {@code maxWait}
   * @throws InterruptedException if interrupted while waiting; the reservation is given back
   */
  public Decision acquire(String name, String key, double count, Duration maxWait) throws InterruptedException {
    BoundLimit bound = bound(name);
    String k = key(key);
    long budget = maxWait.toMillis();
    if (bound.limit.reservable()) {
      Decision decision = bound.apply(k, Operation.RESERVE, count, budget);
      if (decision.allowed() && decision.retryAfterMillis() > 0) {
        try {
          clock.sleep(decision.retryAfterMillis());
        } catch (InterruptedException e) {
          bound.refund(k, count);
          throw e;
        }
      }
      return decision;
    }
    return retryUntil(() -> bound.apply(k, Operation.LIMIT, count, 0), Decision::allowed, Decision::retryAfterMillis,
        clock.millis() + budget);
  }

  /**
   * {@link #acquire} on several limits at once, all or nothing: one call acquires; several are
   * tried together and, while denied, again when the decisions say, until {@code maxWait} is
   * spent.
   *
   * @return the admitting decisions, or the denials when the wait would exceed {@code maxWait}
   * @throws InterruptedException if interrupted while waiting
   */
  public Decisions acquireAll(List<LimitCall> calls, Duration maxWait) throws InterruptedException {
    Objects.requireNonNull(maxWait, "maxWait");
    if (calls.size() == 1) {
      LimitCall only = calls.get(0);
      return new Decisions(calls, List.of(acquire(only.limit(), only.key(), only.count(), maxWait)));
    }
    return retryUntil(() -> limitAll(calls), Decisions::allowed, Decisions::retryAfterMillis,
        clock.millis() + maxWait.toMillis());
  }

  /** {@link #acquireAll} without blocking a thread: completes when the turn has come. */
  public CompletionStage<Decisions> acquireAllAsync(List<LimitCall> calls, Duration maxWait) {
    Objects.requireNonNull(maxWait, "maxWait");
    if (calls.size() == 1) {
      LimitCall only = calls.get(0);
      return acquireAsync(only.limit(), only.key(), only.count(), maxWait)
          .thenApply(decision -> new Decisions(calls, List.of(decision)));
    }
    return retryUntilAsync(() -> limitAllAsync(calls), Decisions::allowed, Decisions::retryAfterMillis,
        clock.millis() + maxWait.toMillis());
  }

  /**
   * The one wait loop: decides and, while denied, sleeps as long as the decision says and tries
   * again, until the next wait would pass the deadline.
   */
  private <T> T retryUntil(Supplier<T> attempt, Predicate<T> allowed, ToLongFunction<T> retryAfter, long deadline)
      throws InterruptedException {
    for (;;) {
      T outcome = attempt.get();
      long wait = retryAfter.applyAsLong(outcome);
      if (allowed.test(outcome) || wait > deadline - clock.millis()) {
        return outcome;
      }
      clock.sleep(Math.max(1, wait));
    }
  }

  /** {@link #retryUntil} without blocking: waits on {@link Clock#after}. */
  private <T> CompletionStage<T> retryUntilAsync(Supplier<CompletionStage<T>> attempt, Predicate<T> allowed,
      ToLongFunction<T> retryAfter, long deadline) {
    return attempt.get().thenCompose(outcome -> {
      long wait = retryAfter.applyAsLong(outcome);
      return allowed.test(outcome) || wait > deadline - clock.millis()
          ? CompletableFuture.completedFuture(outcome)
          : clock.after(Math.max(1, wait)).thenCompose(waited -> retryUntilAsync(attempt, allowed, retryAfter, deadline));
    });
  }

  /** Consumes on every limit or on none. */
  public Decisions limitAll(LimitCall... calls) {
    return limitAll(List.of(calls));
  }

  /** Consumes on every limit or on none. */
  public Decisions limitAll(List<LimitCall> calls) {
    Plan plan = plan(calls);
    Report report = listener == null ? null : new Report();
    return plan.reported(plan.decisions(limitAll(plan.charges, plan.guarded(), report)), report);
  }

  /** All or nothing: on the store when it answers, else charge by charge through each limit's failure policy. */
  private List<Decision> limitAll(List<Charge> raw, List<Charge> guarded, Report report) {
    return guard.call(() -> store.limitAll(raw), () -> {
      if (report != null) {
        report.allFellBack = true;
      }
      return RateLimitStore.limitInOrder(guarded);
    });
  }

  /** {@link #limitAll(List, List, Report)} for stores that answer later. */
  private CompletionStage<List<Decision>> limitAllAsync(List<Charge> raw, List<Charge> guarded, Report report) {
    return guard.callAsync(() -> store.limitAllAsync(raw), () -> {
      if (report != null) {
        report.allFellBack = true;
      }
      return RateLimitStore.limitInOrderAsync(guarded);
    });
  }

  /** Forgets the key: it is full again. */
  public void reset(String name, String key) {
    bound(name).reset(key(key));
  }

  /**
   * Gives back units that were taken but not used, never above the capacity.
   *
   * @return the key's state afterwards (a check for 0 units)
   */
  public Decision refund(String name, String key, double count) {
    return bound(name).refund(key(key), count);
  }

  public CompletionStage<Decision> limitAsync(String name, String key, double count) {
    return bound(name).applyAsync(key(key), Operation.LIMIT, count, 0);
  }

  public CompletionStage<Decision> checkAsync(String name, String key, double count) {
    return bound(name).applyAsync(key(key), Operation.CHECK, count, 0);
  }

  public CompletionStage<Decision> reserveAsync(String name, String key, double count) {
    return bound(name).applyAsync(key(key), Operation.RESERVE, count, Long.MAX_VALUE);
  }

  /** {@link #acquire} without blocking a thread: completes when the turn has come. */
  public CompletionStage<Decision> acquireAsync(String name, String key, double count, Duration maxWait) {
    BoundLimit bound = bound(name);
    String k = key(key);
    long budget = maxWait.toMillis();
    if (bound.limit.reservable()) {
      return bound.applyAsync(k, Operation.RESERVE, count, budget).thenCompose(decision -> decision.allowed()
          ? clock.after(decision.retryAfterMillis()).thenApply(done -> decision)
          : CompletableFuture.completedFuture(decision));
    }
    return retryUntilAsync(() -> bound.applyAsync(k, Operation.LIMIT, count, 0), Decision::allowed,
        Decision::retryAfterMillis, clock.millis() + budget);
  }

  public CompletionStage<Decisions> limitAllAsync(List<LimitCall> calls) {
    Plan plan = plan(calls);
    Report report = listener == null ? null : new Report();
    return limitAllAsync(plan.charges, plan.guarded(), report)
        .thenApply(perCharge -> plan.reported(plan.decisions(perCharge), report));
  }

  public CompletionStage<Void> resetAsync(String name, String key) {
    return bound(name).resetAsync(key(key));
  }

  public CompletionStage<Decision> refundAsync(String name, String key, double count) {
    return bound(name).refundAsync(key(key), count);
  }

  /** {@link #limit(String, String, double)} on a limit that has no name: equal limits share state. */
  public Decision limit(Limit limit, String key, double count) {
    return adHoc(limit).apply(key(key), Operation.LIMIT, count, 0);
  }

  public Decision check(Limit limit, String key, double count) {
    return adHoc(limit).apply(key(key), Operation.CHECK, count, 0);
  }

  public Decision reserve(Limit limit, String key, double count) {
    return adHoc(limit).apply(key(key), Operation.RESERVE, count, Long.MAX_VALUE);
  }

  public void reset(Limit limit, String key) {
    adHoc(limit).reset(key(key));
  }

  /** The named limits, in the order they were added. */
  public Map<String, Limit> limits() {
    return limits;
  }

  public Clock clock() {
    return clock;
  }

  /**
   * Whether the store answers. While it doesn't, every limit follows its failure policy:
   * {@code open} admits, {@code closed} throws {@link StoreUnavailableException}, {@code local}
   * decides on an in-memory store. For health checks and metrics.
   */
  public boolean storeAvailable() {
    return health.available();
  }

  public RateLimitStore store() {
    return store;
  }

  /** Closes the store. */
  @Override
  public void close() {
    store.close();
  }

  private BoundLimit bound(String name) {
    BoundLimit bound = named.get(name);
    if (bound == null) {
      throw new IllegalArgumentException("unknown limit '" + name + "'; configured limits: "
          + (limits.isEmpty() ? "none" : String.join(", ", limits.keySet())));
    }
    return bound;
  }

  private BoundLimit adHoc(Limit limit) {
    Objects.requireNonNull(limit, "limit");
    // a name no configured limit can have (names are kebab-case), so ad-hoc state never collides
    return adHoc.computeIfAbsent(limit, l -> BoundLimit.bind(binding(), "~" + l, l));
  }

  /** Binds limits to the store, behind their failure policies. */
  private BoundLimit.Binding binding() {
    return new BoundLimit.Binding() {
      @Override
      public RateLimitStore store() {
        return store;
      }

      @Override
      public CompletionStage<List<Decision>> limitAllAsync(List<Charge> raw, List<Charge> guarded, Report report) {
        return RateLimiter.this.limitAllAsync(raw, guarded, report);
      }

      @Override
      public DecisionListener listener() {
        return listener;
      }

      @Override
      public KeySpace guard(KeySpace raw) {
        if (!store.canFail()) {
          return raw; // its fallback would be another in-memory store: no guard on the hot path
        }
        FailurePolicy policy = raw.limit().failure() != null ? raw.limit().failure() : storeFailure;
        KeySpace[] local = new KeySpace[1];
        return new GuardedKeySpace(raw, policy, guard, () -> {
          synchronized (local) {
            if (local[0] == null) {
              local[0] = localStore().bind(raw.name(), raw.limit());
            }
            return local[0];
          }
        });
      }
    };
  }

  private InMemoryStore localStore() {
    InMemoryStore local = localStore;
    if (local == null) {
      synchronized (this) {
        if (localStore == null) {
          localStore = new InMemoryStore(Clock.system());
        }
        local = localStore;
      }
    }
    return local;
  }

  /** Every front end's key, bounded here once: long or not losslessly encodable keys are hashed. */
  private static String key(String key) {
    return LongKeys.bounded(Objects.requireNonNull(key, "key (use \"\" for the limit's global bucket)"));
  }

  /** The store charges of an all-or-nothing call, and how they map back to its calls. */
  private Plan plan(List<LimitCall> calls) {
    List<BoundLimit> bounds = new ArrayList<>(calls.size());
    List<Integer> sizes = new ArrayList<>(calls.size());
    List<Charge> charges = new ArrayList<>(calls.size());
    for (LimitCall call : calls) {
      BoundLimit bound = bound(call.limit());
      List<Charge> own = bound.charges(key(call.key()), call.count());
      bounds.add(bound);
      sizes.add(own.size());
      charges.addAll(own);
    }
    return new Plan(calls, bounds, sizes, charges);
  }

  private record Plan(List<LimitCall> calls, List<BoundLimit> bounds, List<Integer> sizes, List<Charge> charges) {
    /** The charges on each limit's guarded space: decided by its failure policy while the store is down. */
    List<Charge> guarded() {
      List<Charge> guarded = new ArrayList<>(charges.size());
      int at = 0;
      for (int i = 0; i < bounds.size(); i++) {
        for (int j = 0; j < sizes.get(i); j++, at++) {
          Charge charge = charges.get(at);
          guarded.add(new Charge(bounds.get(i).space, charge.key(), charge.count()));
        }
      }
      return guarded;
    }

    /** Each call's decision to the listener, once per call, when there is one ({@code report}). */
    Decisions reported(Decisions decisions, Report report) {
      if (report != null) {
        for (int i = 0; i < bounds.size(); i++) {
          bounds.get(i).reported(decisions.decisions().get(i), report);
        }
      }
      return decisions;
    }

    Decisions decisions(List<Decision> perCharge) {
      List<Decision> perCall = new ArrayList<>(calls.size());
      int at = 0;
      for (int i = 0; i < calls.size(); i++) {
        perCall.add(bounds.get(i).combine(perCharge.subList(at, at + sizes.get(i))));
        at += sizes.get(i);
      }
      return new Decisions(calls, perCall);
    }
  }

  /** Configures a {@link RateLimiter}. */
  public static final class Builder {
    private final Map<String, Limit> limits = new LinkedHashMap<>();
    private Clock clock = Clock.system();
    private RateLimitStore store;
    private FailurePolicy storeFailure = FailurePolicy.LOCAL;
    private Duration storeRetry = Duration.ofSeconds(1);
    private DecisionListener listener;

    private Builder() {}

    /**
     * Adds a named limit from a spec (docs/design.md §5).
     *
     * @throws InvalidLimitSpecException naming the spec, the bad token and what is allowed
     * @throws IllegalArgumentException if the name is not kebab-case or is already used
     */
    public Builder limit(String name, String spec) {
      checkName(name);
      return limit(name, Limit.parse(spec));
    }

    public Builder limit(String name, Limit limit) {
      checkName(name);
      Objects.requireNonNull(limit, "limit");
      if (limits.putIfAbsent(name, limit) != null) {
        throw new IllegalArgumentException("limit '" + name + "' is defined twice");
      }
      return this;
    }

    private static void checkName(String name) {
      if (name == null || !NAME.matcher(name).matches()) {
        throw new IllegalArgumentException("invalid limit name '" + name
            + "': names are kebab-case, lower-case letters, digits and '-' ([a-z0-9-]+)");
      }
    }

    /** The clock for the default in-memory store and for waits. Default: {@link Clock#system()}. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Where state lives. Default: an {@link InMemoryStore} on this builder's clock. */
    public Builder store(RateLimitStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /**
     * What limits without a {@code failure=} parameter do while a remote store is unavailable.
     * Default: {@link FailurePolicy#LOCAL}, deciding on an in-memory store until it answers.
     */
    public Builder storeFailure(FailurePolicy policy) {
      this.storeFailure = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** How often a store that failed is tried again (one request at a time). Default: 1 s. */
    public Builder storeRetry(Duration interval) {
      if (interval == null || interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("storeRetry must be positive but was " + interval);
      }
      this.storeRetry = interval;
      return this;
    }

    /**
     * Who hears of every decision (for metrics and logs), including those a failure policy made
     * while the store was down. Default: nobody, at no cost.
     */
    public Builder listener(DecisionListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    public RateLimiter build() {
      return new RateLimiter(this);
    }
  }
}

package dev.ratelimit.limiter;

import dev.ratelimit.Clock;
import dev.ratelimit.Decision;
import dev.ratelimit.DecisionListener;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;
import dev.ratelimit.internal.LongKeys;
import dev.ratelimit.store.InMemoryStore;
import dev.ratelimit.store.KeySpace;
import dev.ratelimit.store.RateLimitStore.Charge;
import dev.ratelimit.store.RateLimitStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Decisions on named limits, per key. Thread-safe; build one per application. Each named limit
 * is decided through its {@link NamedLimiter} ({@link #named}), which takes a plan and a key in
 * separate steps, so that a limit's name, a plan and a key can't be given in each other's place.
 *
 * <pre>{@code
 * RateLimiter limiter = RateLimiter.builder()
 *     .limit("api", "token-bucket rate=100 period=1m")
 *     .limit("login", "fixed-window rate=5 period=15m")
 *     .build();                                  // in-memory store, system clock
 * NamedLimiter api = limiter.named("api");       // keep it in a field
 *
 * Decision decision = api.limit(userId);
 * if (!decision.allowed()) { ... decision.retryAfter() ... }
 * }</pre>
 *
 * <p>The key may be empty: one global bucket for the limit. A count must be a finite number, 0 or
 * more, and within what the limit could ever admit; anything else is an
 * {@link IllegalArgumentException} naming the limit, the count and the bound.
 *
 * @since 1.0
 */
public final class RateLimiter implements AutoCloseable {
  private static final Pattern NAME = Pattern.compile("[a-z0-9-]+");

  private final Clock clock;
  private final RateLimitStore store;
  private final FailurePolicy storeFailure;
  private final StoreHealth health;
  private final FailureGuard guard;
  /** {@code null} when nobody listens: then reporting is one null check per decision. */
  private final ListenerCalls listener;
  /** Where limits with the {@code local} policy decide while the store is down; made on first need. */
  private volatile InMemoryStore localStore;
  /**
   * Looked up on every call: plain hash maps, never changed after construction; what changes at
   * runtime is each slot's one volatile reference ({@link #replace}).
   */
  private final Map<String, Slot> named;
  private final UnknownPlans unknownPlans = new UnknownPlans();
  private final Map<Limit, BoundLimit> adHoc = new ConcurrentHashMap<>();
  /** Each named limit's heaviest keys, when tracked ({@link Builder#trackTopKeys}); else empty. */
  private final Map<String, TopKeys> topKeys;

  private RateLimiter(Builder builder) {
    this.clock = builder.clock;
    this.store = builder.store != null ? builder.store : new InMemoryStore(clock);
    this.storeFailure = builder.storeFailure;
    this.health = new StoreHealth(clock, builder.storeRetry.toMillis());
    this.guard = new FailureGuard(health);
    this.listener = builder.listener == null ? null : new ListenerCalls(builder.listener, clock);
    Map<String, TopKeys> tracked = new LinkedHashMap<>();
    if (builder.topKeysSize > 0) {
      builder.limits.keySet().forEach(name ->
          tracked.put(name, new TopKeys(clock, builder.topKeysSize, builder.topKeysWindowMillis)));
    }
    this.topKeys = tracked; // never changed after construction
    Map<String, Slot> slots = new LinkedHashMap<>();
    builder.limits.forEach((name, limit) -> slots.put(name, new Slot(name, BoundLimit.bind(binding(), name, limit))));
    this.named = slots; // never changed after construction
    builder.plans.forEach((plan, specs) -> specs.forEach((name, limit) -> {
      Slot defaultPlan = slots.get(name);
      if (defaultPlan == null) {
        throw new IllegalStateException("plan '" + plan + "' names limit '" + name
            + "', which has no default spec; add limit(\"" + name + "\", spec) first");
      }
      if (defaultPlan.plans.isEmpty()) {
        defaultPlan.plans = new LinkedHashMap<>();
      }
      defaultPlan.plans.put(plan, planSlot(name, plan, limit, defaultPlan));
    }));
  }

  /**
   * A plan's slot: on the default plan's state per key when the two carry over (docs/design.md §2.7),
   * else on a state of its own ({@code name@plan}).
   *
   * @throws IllegalStateException when they carry over but the store can't share the state
   */
  private Slot planSlot(String name, String plan, Limit limit, Slot defaultPlan) {
    BoundLimit shared;
    try {
      shared = BoundLimit.sharing(binding(), limit, defaultPlan.bound);
    } catch (UnsupportedOperationException e) {
      throw new IllegalStateException("limit '" + name + "', plan '" + plan + "' (" + limit + "): its keys would "
          + "share one state with the default plan's (" + defaultPlan.bound.limit + "), but " + e.getMessage()
          + "; give the plan a limit of another kind, or use a store that converts states", e);
    }
    String own = Slot.storeName(name, plan);
    return shared != null ? new Slot(own, shared) : new Slot(own, BoundLimit.bind(binding(), own, limit));
  }

  /** A builder: limits, plans, the store, the clock, failure policy, listener, top keys. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The decisions on one named limit, on its default plan ({@link NamedLimiter#onPlan} for
   * another): every operation on a named limit goes through it. Cheap; safe to keep in a field.
   *
   * @throws IllegalArgumentException for an unknown limit, naming it and the configured ones
   */
  public NamedLimiter named(String name) {
    Slot slot = named.get(name);
    if (slot == null) {
      throw unknownLimit(name);
    }
    return new NamedLimiter(this, name, null, slot, slot);
  }

  UnknownPlans unknownPlans() {
    return unknownPlans;
  }

  Decision acquire(BoundLimit bound, String key, double count, Duration maxWait) throws InterruptedException {
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
    return WaitLoop.retryUntil(clock, () -> bound.apply(k, Operation.LIMIT, count, 0), Decision::allowed,
        Decision::retryAfterMillis, clock.millis() + budget);
  }

  CompletionStage<Decision> acquireAsync(BoundLimit bound, String key, double count, Duration maxWait) {
    String k = key(key);
    long budget = maxWait.toMillis();
    if (bound.limit.reservable()) {
      return bound.applyAsync(k, Operation.RESERVE, count, budget).thenCompose(decision -> decision.allowed()
          ? clock.after(decision.retryAfterMillis()).thenApply(done -> decision)
          : CompletableFuture.completedFuture(decision));
    }
    return WaitLoop.retryUntilAsync(clock, () -> bound.applyAsync(k, Operation.LIMIT, count, 0), Decision::allowed,
        Decision::retryAfterMillis, clock.millis() + budget);
  }

  /**
   * Acquires on several limits at once, all or nothing ({@link NamedLimiter#acquire} for one):
   * one call acquires; several are tried together and, while denied, again when the decisions
   * say, until {@code maxWait} is spent.
   *
   * @param calls made by {@link NamedLimiter#call} on this limiter's limits
   * @return the admitting decisions, or the denials when the wait would exceed {@code maxWait}
   * @throws InterruptedException if interrupted while waiting
   * @throws IllegalArgumentException for a call made by another limiter
   */
  public Decisions acquireAll(List<NamedLimiter.Call> calls, Duration maxWait) throws InterruptedException {
    Objects.requireNonNull(maxWait, "maxWait");
    if (calls.size() == 1) {
      NamedLimiter.Call only = calls.get(0);
      return new Decisions(calls, List.of(acquire(bound(only), only.key(), only.count(), maxWait)));
    }
    return WaitLoop.retryUntil(clock, () -> limitAll(calls), Decisions::allowed, Decisions::retryAfterMillis,
        clock.millis() + maxWait.toMillis());
  }

  /** {@link #acquireAll} without blocking a thread: completes when the turn has come. */
  public CompletionStage<Decisions> acquireAllAsync(List<NamedLimiter.Call> calls, Duration maxWait) {
    Objects.requireNonNull(maxWait, "maxWait");
    if (calls.size() == 1) {
      NamedLimiter.Call only = calls.get(0);
      return acquireAsync(bound(only), only.key(), only.count(), maxWait)
          .thenApply(decision -> new Decisions(calls, List.of(decision)));
    }
    return WaitLoop.retryUntilAsync(clock, () -> limitAllAsync(calls), Decisions::allowed,
        Decisions::retryAfterMillis, clock.millis() + maxWait.toMillis());
  }

  /**
   * Consumes on every limit or on none.
   *
   * @param calls made by {@link NamedLimiter#call} on this limiter's limits
   * @throws IllegalArgumentException for a call made by another limiter
   */
  public Decisions limitAll(NamedLimiter.Call... calls) {
    return limitAll(List.of(calls));
  }

  /**
   * Consumes on every limit or on none.
   *
   * @param calls made by {@link NamedLimiter#call} on this limiter's limits
   * @throws IllegalArgumentException for a call made by another limiter
   */
  public Decisions limitAll(List<NamedLimiter.Call> calls) {
    AllOrNothing plan = plan(calls);
    if (plan.shadows() != null) {
      return plan.shadows().decide(limitAll(plan.shadows().enforced()));
    }
    Report report = listener == null ? null : new Report();
    return plan.reported(plan.decisions(limitAll(plan.charges(), plan.guarded(), report)), report);
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

  /** {@link #limitAll(List)} without blocking, for callers on an event loop. */
  public CompletionStage<Decisions> limitAllAsync(List<NamedLimiter.Call> calls) {
    AllOrNothing plan = plan(calls);
    if (plan.shadows() != null) {
      ShadowParts shadows = plan.shadows();
      return limitAllAsync(shadows.enforced()).thenCompose(shadows::decideAsync);
    }
    if (listener == null) {
      return limitAllAsync(plan.charges(), plan.guarded(), null).thenApply(plan::decisions);
    }
    Report report = new Report();
    return listener.after(limitAllAsync(plan.charges(), plan.guarded(), report),
        perCharge -> plan.reported(plan.decisions(perCharge), report));
  }

  /**
   * {@link #limitAll} whose charges are settled afterwards, each on its own
   * ({@link PendingCharge#settle}, {@link PendingCharge#settleActual}): every limit is charged or
   * none, and each charge knows whether its units were really taken, so that a settlement never
   * gives back what was not taken (a shadow limit's would-be denial, the {@code open} policy's
   * admission while the store is down, a call denied as a whole).
   *
   * @param calls made by {@link NamedLimiter#call} on this limiter's limits
   * @return one charge per call, in order; their decisions are {@link #limitAll}'s
   * @throws IllegalArgumentException for a call made by another limiter
   */
  public List<PendingCharge> chargeAll(List<NamedLimiter.Call> calls) {
    AllOrNothing plan = plan(calls);
    if (plan.shadows() != null) {
      return plan.shadows().charge(chargeAll(plan.shadows().enforced()));
    }
    Report report = new Report();
    Decisions decisions = plan.decisions(limitAll(plan.charges(), plan.guarded(), report));
    return plan.pending(plan.reported(decisions, listener == null ? null : report), report);
  }

  /** {@link #chargeAll} without blocking, for callers on an event loop. */
  public CompletionStage<List<PendingCharge>> chargeAllAsync(List<NamedLimiter.Call> calls) {
    AllOrNothing plan = plan(calls);
    if (plan.shadows() != null) {
      ShadowParts shadows = plan.shadows();
      return chargeAllAsync(shadows.enforced()).thenCompose(shadows::chargeAsync);
    }
    Report report = new Report();
    CompletionStage<List<Decision>> decided = limitAllAsync(plan.charges(), plan.guarded(), report);
    if (listener == null) {
      return decided.thenApply(perCharge -> plan.pending(plan.reported(plan.decisions(perCharge), null), report));
    }
    return listener.after(decided,
        perCharge -> plan.pending(plan.reported(plan.decisions(perCharge), report), report));
  }

  /** Forgets the key of a named limit, under every plan: it is full again. */
  void reset(String name, Slot slot, String key) {
    String k = key(key);
    slot.bound.reset(k);
    for (Slot plan : slot.plans.values()) {
      if (!plan.bound.name.equals(name)) { // a plan sharing the default's state was reset with it
        plan.bound.reset(k);
      }
    }
  }

  /** {@link #reset(String, Slot, String)} without blocking. */
  CompletionStage<Void> resetAsync(String name, Slot slot, String key) {
    String k = key(key);
    CompletionStage<Void> done = slot.bound.resetAsync(k);
    for (Slot plan : slot.plans.values()) {
      if (!plan.bound.name.equals(name)) {
        done = done.thenCompose(ignored -> plan.bound.resetAsync(k));
      }
    }
    return done;
  }

  /**
   * Consumes {@code count} units if admitted, on a limit that has no name: equal limits share
   * state.
   */
  public Decision limit(Limit limit, String key, double count) {
    return adHoc(limit).apply(key(key), Operation.LIMIT, count, 0);
  }

  /** The decision {@link #limit(Limit, String, double)} would make, consuming nothing. */
  public Decision check(Limit limit, String key, double count) {
    return adHoc(limit).apply(key(key), Operation.CHECK, count, 0);
  }

  /** {@link NamedLimiter#reserve} on a limit that has no name. */
  public Decision reserve(Limit limit, String key, double count) {
    return adHoc(limit).apply(key(key), Operation.RESERVE, count, Long.MAX_VALUE);
  }

  /** Forgets the key of a limit that has no name: it is full again. */
  public void reset(Limit limit, String key) {
    adHoc(limit).reset(key(key));
  }

  /** {@link NamedLimiter#topKeys}. */
  List<NamedLimiter.TopKey> topKeys(String name, int max) {
    if (max < 0) {
      throw new IllegalArgumentException("max must be 0 or more but was " + max);
    }
    TopKeys top = topKeys.get(name);
    if (top == null) {
      throw new IllegalStateException("top keys are not tracked; turn them on with RateLimiter.builder()"
          + ".trackTopKeys(size, window)");
    }
    return top.top(max);
  }

  /** The named limits in force (default plan), in the order they were added. */
  public Map<String, Limit> limits() {
    Map<String, Limit> limits = new LinkedHashMap<>();
    named.forEach((name, slot) -> limits.put(name, slot.bound.limit));
    return Collections.unmodifiableMap(limits);
  }

  /** The plans' limits in force: limit name → plan name → limit (the default plan aside). */
  public Map<String, Map<String, Limit>> plans() {
    Map<String, Map<String, Limit>> all = new LinkedHashMap<>();
    named.forEach((name, slot) -> {
      Map<String, Slot> own = slot.plans;
      if (!own.isEmpty()) {
        Map<String, Limit> specs = new LinkedHashMap<>();
        own.forEach((plan, planned) -> specs.put(plan, planned.bound.limit));
        all.put(name, Collections.unmodifiableMap(specs));
      }
    });
    return Collections.unmodifiableMap(all);
  }

  /** {@link NamedLimiter#replace(Limit)}: a plan must be configured for the limit. */
  Limit replace(String name, String plan, Limit limit) {
    Objects.requireNonNull(limit, "limit");
    Slot slot = slot(name, plan);
    synchronized (named.get(name)) { // replacements of one name's plans in order; decisions never wait on this
      BoundLimit previous = slot.bound;
      slot.bound = replacing(name, plan, slot, limit);
      return previous.limit;
    }
  }
  /**
   * The bound limit taking {@code slot}'s place. Plans sharing one state per key (§2.7) stay on it
   * while they carry over to one another; a plan replaced by a limit they don't carry over to
   * leaves it for a state of its own, fresh; the default plan can't leave it while plans share it.
   */
  private BoundLimit replacing(String name, String plan, Slot slot, Limit limit) {
    BoundLimit previous = slot.bound;
    boolean ownState = !previous.name.equals(name); // a plan on a state of its own
    List<String> sharers = new ArrayList<>();
    boolean carries = true;
    if (!ownState) {
      if (plan != null) {
        sharers.add("the default plan");
        carries = BoundLimit.carriesOver(named.get(name).bound.limit, limit);
      }
      for (Map.Entry<String, Slot> other : named.get(name).plans.entrySet()) {
        BoundLimit bound = other.getValue().bound;
        if (other.getValue() != slot && bound.name.equals(name)) {
          sharers.add("plan '" + other.getKey() + "'");
          carries &= BoundLimit.carriesOver(bound.limit, limit);
        }
      }
      if (!carries && !sharers.isEmpty() && plan == null) {
        throw new IllegalStateException("limit '" + name + "': " + String.join(", ", sharers) + " share the default "
            + "plan's state per key, which " + limit + " can't carry over; replace those plans first");
      }
    }
    // then: a shared store tells the other nodes, or refuses, before a bind moves any state
    store.replacing(name, plan, limit);
    if (ownState) {
      return BoundLimit.bind(binding(), slot.storeName, limit, previous);
    }
    if (carries || sharers.isEmpty()) {
      return BoundLimit.bind(binding(), name, limit, previous);
    }
    return BoundLimit.bind(binding(), slot.storeName, limit); // the plan leaves the shared state: fresh
  }

  public Clock clock() {
    return clock;
  }

  /**
   * Whether the store answers. While it doesn't, every limit follows its failure policy:
   * {@code open} admits, {@code closed} throws {@link dev.ratelimit.StoreUnavailableException}, {@code local}
   * decides on an in-memory store. For health checks and metrics.
   */
  public boolean storeAvailable() {
    return health.available();
  }

  public RateLimitStore store() {
    return store;
  }

  /** The listener's calls, or {@code null} (for tests). */
  ListenerCalls listenerCalls() {
    return listener;
  }

  /** Closes the store, and lets the listener's thread end once it has told the listener what it holds. */
  @Override
  public void close() {
    try {
      store.close();
    } finally {
      if (listener != null) {
        listener.close();
      }
    }
  }

  /** The limit in force for a call of an all-or-nothing call, which must be this limiter's. */
  private BoundLimit bound(NamedLimiter.Call call) {
    if (call.named().limiter() != this) {
      throw new IllegalArgumentException("an all-or-nothing call on limit '" + call.limit()
          + "' was made by another RateLimiter; make it with this limiter's named(\"" + call.limit() + "\").call(...)");
    }
    return call.named().bound();
  }

  /** The slot to replace: a plan must be configured. */
  private Slot slot(String name, String plan) {
    Slot slot = named.get(name);
    if (slot == null) {
      throw unknownLimit(name);
    }
    if (plan == null) {
      return slot;
    }
    Slot planned = slot.plans.get(plan);
    if (planned == null) {
      throw new IllegalArgumentException("limit '" + name + "' has no plan '" + plan + "'; its plans: "
          + (slot.plans.isEmpty() ? "none" : String.join(", ", slot.plans.keySet())));
    }
    return planned;
  }

  private IllegalArgumentException unknownLimit(String name) {
    return new IllegalArgumentException("unknown limit '" + name + "'; configured limits: "
        + (named.isEmpty() ? "none" : String.join(", ", named.keySet())));
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
      public List<Decision> limitAll(List<Charge> raw, List<Charge> guarded, Report report) {
        return RateLimiter.this.limitAll(raw, guarded, report);
      }

      @Override
      public ListenerCalls listener() {
        return listener;
      }

      @Override
      public Clock clock() {
        return clock;
      }

      @Override
      public TopKeys topKeys(String name) {
        int plan = name.indexOf('@'); // a plan with a state of its own counts under its limit's name
        return topKeys.get(plan < 0 ? name : name.substring(0, plan));
      }

      @Override
      public KeySpace guard(KeySpace raw, Limit limit) {
        if (!store.canFail()) {
          return raw; // its fallback would be another in-memory store: no guard on the hot path
        }
        FailurePolicy policy = limit.failure() != null ? limit.failure() : storeFailure;
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
  static String key(String key) {
    return LongKeys.bounded(Objects.requireNonNull(key, "key (use \"\" for the limit's global bucket)"));
  }

  /** The store charges of an all-or-nothing call, and how they map back to its calls. */
  private AllOrNothing plan(List<NamedLimiter.Call> calls) {
    List<BoundLimit> bounds = new ArrayList<>(calls.size());
    List<Integer> sizes = new ArrayList<>(calls.size());
    List<Charge> charges = new ArrayList<>(calls.size());
    boolean shadow = false;
    for (NamedLimiter.Call call : calls) {
      BoundLimit bound = bound(call);
      for (int i = 0; i < bounds.size(); i++) {
        // one state under two limits at one instant: the store would decide it by both at once
        if (bounds.get(i) != bound && bounds.get(i).name.equals(bound.name)
            && key(calls.get(i).key()).equals(key(call.key()))) {
          throw new IllegalArgumentException("an all-or-nothing call names one key of limit '" + call.limit()
              + "' under two plans, which share its state; name it once");
        }
      }
      List<Charge> own = bound.charges(key(call.key()), call.count());
      bounds.add(bound);
      sizes.add(own.size());
      charges.addAll(own);
      shadow |= bound.shadow;
    }
    return new AllOrNothing(calls, bounds, sizes, charges, shadow ? new ShadowParts(calls, bounds) : null);
  }

  /** Configures a {@link RateLimiter}. */
  public static final class Builder {
    /** The largest sketch of top keys: 65536 keys per sketch, each window and stripe. */
    private static final int MAX_TOP_KEYS = 1 << 16;
    private final Map<String, Limit> limits = new LinkedHashMap<>();
    /** Plan name → limit name → limit; checked against {@link #limits} at build. */
    private final Map<String, Map<String, Limit>> plans = new LinkedHashMap<>();
    private Clock clock = Clock.system();
    private RateLimitStore store;
    private FailurePolicy storeFailure = FailurePolicy.LOCAL;
    private Duration storeRetry = Duration.ofSeconds(1);
    private DecisionListener listener;
    /** 0: top keys not tracked. */
    private int topKeysSize;
    private long topKeysWindowMillis;

    private Builder() {}

    /**
     * Adds a named limit from a spec (docs/design.md §5).
     *
     * @throws dev.ratelimit.InvalidLimitSpecException naming the spec, the bad token and what is allowed
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

    /**
     * The specs of named limits under a plan (a tier such as {@code pro}), given in the next step:
     * {@code builder.onPlan("pro").limit("api", "token-bucket rate=10000 period=1h")}. Calls
     * choose the plan ({@link NamedLimiter#onPlan}). Each limit needs a default spec
     * ({@link #limit(String, String)}), or {@link #build} throws {@link IllegalStateException}.
     *
     * @throws IllegalArgumentException if the plan's name is not kebab-case
     */
    public OnPlan onPlan(String plan) {
      if (plan == null || !NAME.matcher(plan).matches()) {
        throw new IllegalArgumentException("invalid plan name '" + plan
            + "': names are kebab-case, lower-case letters, digits and '-' ([a-z0-9-]+)");
      }
      return new OnPlan(plan);
    }

    /**
     * One plan's step of the builder: the spec a named limit has under it.
     *
     * @since 1.0
     */
    public final class OnPlan {
      private final String plan;

      private OnPlan(String plan) {
        this.plan = plan;
      }

      /**
       * Gives the named limit this spec under the plan.
       *
       * @throws IllegalArgumentException if the name is not kebab-case, the spec is invalid, or
       *     the plan already has this limit
       */
      public Builder limit(String name, String spec) {
        checkName(name);
        return limit(name, Limit.parse(spec));
      }

      /** {@link #limit(String, String)} with the limit as a value. */
      public Builder limit(String name, Limit limit) {
        checkName(name);
        Objects.requireNonNull(limit, "limit");
        if (plans.computeIfAbsent(plan, p -> new LinkedHashMap<>()).putIfAbsent(name, limit) != null) {
          throw new IllegalArgumentException("limit '" + name + "' is defined twice in plan '" + plan + "'");
        }
        return Builder.this;
      }
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
     * while the store was down. Default: nobody, at no cost. Nothing it throws changes a
     * decision; it never runs on a store's own threads (docs/design.md §10).
     */
    public Builder listener(DecisionListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Tracks each named limit's heaviest keys, for {@link NamedLimiter#topKeys} (docs/design.md
     * §10.2): a heavy-hitters sketch of {@code size} keys per window and per stripe of threads
     * (up to 8 stripes), two windows of {@code window} each. Every admitted or refused
     * {@code limit} then costs a lock taken without waiting, a hash lookup and a clock read.
     * Default: not tracked, at no cost.
     *
     * @param size keys per sketch, 1 to 65536: any key with more than 1/size of the units of
     *     two windows is listed, and every count is within that of the truth
     * @param window how long each window lasts, at least 1 ms; a read covers the current window
     *     and the one before
     */
    public Builder trackTopKeys(int size, Duration window) {
      if (size < 1 || size > MAX_TOP_KEYS) {
        throw new IllegalArgumentException("top keys size must be from 1 to " + MAX_TOP_KEYS + " but was " + size);
      }
      if (window == null || window.compareTo(Duration.ofMillis(1)) < 0) {
        throw new IllegalArgumentException("top keys window must be at least 1 ms but was " + window);
      }
      this.topKeysSize = size;
      // a window past what milliseconds hold in a long is one window for ever
      this.topKeysWindowMillis = window.getSeconds() >= Long.MAX_VALUE / 1000 ? Long.MAX_VALUE : window.toMillis();
      return this;
    }

    public RateLimiter build() {
      return new RateLimiter(this);
    }
  }
}

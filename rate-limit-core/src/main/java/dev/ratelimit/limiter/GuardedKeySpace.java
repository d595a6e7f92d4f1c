package dev.ratelimit.limiter;

import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;
import dev.ratelimit.internal.Futures;
import dev.ratelimit.store.KeySpace;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A store's key space with the limit's failure policy around it: while the store can't decide,
 * {@code open} admits, {@code closed} passes the {@link StoreUnavailableException} on, and
 * {@code local} decides on an in-memory store (the same limit, its own state) until the store
 * answers again. Settlements (refunds, takes) go to the local store under {@code local} and fail
 * otherwise.
 */
final class GuardedKeySpace implements KeySpace {
  private final KeySpace store;
  private final FailurePolicy policy;
  private final FailureGuard guard;
  private final Supplier<KeySpace> local;

  GuardedKeySpace(KeySpace store, FailurePolicy policy, FailureGuard guard, Supplier<KeySpace> local) {
    this.store = store;
    this.policy = policy;
    this.guard = guard;
    this.local = local;
  }

  @Override
  public String name() {
    return store.name();
  }

  @Override
  public Limit limit() {
    return store.limit();
  }

  FailurePolicy policy() {
    return policy;
  }

  @Override
  public Decision apply(String key, Operation op, double count, long maxWait) {
    return apply(key, op, count, maxWait, null);
  }

  /** As {@link #apply(String, Operation, double, long)}, noting in {@code report} when the policy decided. */
  Decision apply(String key, Operation op, double count, long maxWait, Report report) {
    return guard.call(() -> store.apply(key, op, count, maxWait), () -> withoutStore(key, op, count, maxWait, report));
  }

  @Override
  public CompletionStage<Decision> applyAsync(String key, Operation op, double count, long maxWait) {
    return applyAsync(key, op, count, maxWait, null);
  }

  CompletionStage<Decision> applyAsync(String key, Operation op, double count, long maxWait, Report report) {
    return guard.callAsync(() -> store.applyAsync(key, op, count, maxWait),
        () -> Futures.completed(() -> withoutStore(key, op, count, maxWait, report)));
  }

  /**
   * The decision of the failure policy. A take (units already spent) has nothing to admit: under
   * {@code open} it fails as under {@code closed}, as a refund does.
   */
  private Decision withoutStore(String key, Operation op, double count, long maxWait, Report report) {
    Decision decision = switch (policy) {
      case OPEN -> {
        if (op == Operation.TAKE) {
          throw guard.health().lastFailure();
        }
        yield new Decision(true, limit().capacity(), limit().capacity(), 0, 0);
      }
      case CLOSED -> throw guard.health().lastFailure();
      case LOCAL -> local.get().apply(key, op, count, maxWait);
    };
    if (report != null) {
      report.fallback = policy;
    }
    return decision;
  }

  /** Resets and refunds: on the local store when the policy is local, else as the store fails. */
  @Override
  public void reset(String key) {
    Supplier<Void> onStore = () -> {
      store.reset(key);
      return null;
    };
    if (policy == FailurePolicy.LOCAL) {
      guard.call(onStore, () -> {
        local.get().reset(key);
        return null;
      });
    } else {
      guard.tryStore(onStore);
    }
  }

  @Override
  public Decision refund(String key, double count) {
    return policy == FailurePolicy.LOCAL
        ? guard.call(() -> store.refund(key, count), () -> local.get().refund(key, count))
        : guard.tryStore(() -> store.refund(key, count));
  }

  @Override
  public CompletionStage<Void> resetAsync(String key) {
    return policy == FailurePolicy.LOCAL
        ? guard.callAsync(() -> store.resetAsync(key), () -> local.get().resetAsync(key))
        : guard.tryStoreAsync(() -> store.resetAsync(key));
  }

  @Override
  public CompletionStage<Decision> refundAsync(String key, double count) {
    return policy == FailurePolicy.LOCAL
        ? guard.callAsync(() -> store.refundAsync(key, count), () -> local.get().refundAsync(key, count))
        : guard.tryStoreAsync(() -> store.refundAsync(key, count));
  }

  /** The store's own key space, for calls the store decides all at once. */
  KeySpace store() {
    return store;
  }
}

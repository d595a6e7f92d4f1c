package dev.ratelimit;

import dev.ratelimit.store.KeySpace;
import dev.ratelimit.store.Operation;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A store's key space with the limit's failure policy around it: while the store can't decide,
 * {@code open} admits, {@code closed} passes the {@link StoreUnavailableException} on, and
 * {@code local} decides on an in-memory store (the same limit, its own state) until the store
 * answers again.
 */
final class GuardedKeySpace implements KeySpace {
  private final KeySpace store;
  private final FailurePolicy policy;
  private final StoreHealth health;
  private final Supplier<KeySpace> local;

  GuardedKeySpace(KeySpace store, FailurePolicy policy, StoreHealth health, Supplier<KeySpace> local) {
    this.store = store;
    this.policy = policy;
    this.health = health;
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

  @Override
  public Decision apply(String key, Operation op, double count, long maxWait) {
    if (!health.skipStore()) {
      try {
        Decision decision = store.apply(key, op, count, maxWait);
        health.succeeded();
        return decision;
      } catch (StoreUnavailableException e) {
        health.failed(e);
      }
    }
    return withoutStore(key, op, count, maxWait);
  }

  @Override
  public CompletionStage<Decision> applyAsync(String key, Operation op, double count, long maxWait) {
    if (health.skipStore()) {
      return completed(() -> withoutStore(key, op, count, maxWait));
    }
    return store.applyAsync(key, op, count, maxWait).handle((decision, failure) -> {
      if (failure == null) {
        health.succeeded();
        return CompletableFuture.completedFuture(decision);
      }
      health.failed(unavailable(failure));
      return completed(() -> withoutStore(key, op, count, maxWait));
    }).thenCompose(stage -> stage);
  }

  /** The decision of the failure policy. */
  private Decision withoutStore(String key, Operation op, double count, long maxWait) {
    return switch (policy) {
      case OPEN -> new Decision(true, limit().capacity(), limit().capacity(), 0, 0);
      case CLOSED -> throw health.lastFailure();
      case LOCAL -> local.get().apply(key, op, count, maxWait);
    };
  }

  @Override
  public void reset(String key) {
    guard(() -> {
      store.reset(key);
      return null;
    }, () -> {
      local.get().reset(key);
      return null;
    });
  }

  @Override
  public Decision refund(String key, double count) {
    return guard(() -> store.refund(key, count), () -> local.get().refund(key, count));
  }

  @Override
  public CompletionStage<Void> resetAsync(String key) {
    return guardAsync(() -> store.resetAsync(key), () -> local.get().resetAsync(key));
  }

  @Override
  public CompletionStage<Decision> refundAsync(String key, double count) {
    return guardAsync(() -> store.refundAsync(key, count), () -> local.get().refundAsync(key, count));
  }

  private <T> CompletionStage<T> guardAsync(Supplier<CompletionStage<T>> onStore,
      Supplier<CompletionStage<T>> onLocal) {
    if (health.skipStore() && policy == FailurePolicy.LOCAL) {
      return onLocal.get();
    }
    return onStore.get().handle((result, failure) -> {
      if (failure == null) {
        health.succeeded();
        return CompletableFuture.completedFuture(result);
      }
      StoreUnavailableException unavailable = unavailable(failure);
      health.failed(unavailable);
      return policy == FailurePolicy.LOCAL ? onLocal.get() : CompletableFuture.<T>failedFuture(unavailable);
    }).thenCompose(stage -> stage);
  }

  /** Resets and refunds: on the local store when the policy is local, else as the store fails. */
  private <T> T guard(Supplier<T> onStore, Supplier<T> onLocal) {
    if (health.skipStore() && policy == FailurePolicy.LOCAL) {
      return onLocal.get();
    }
    try {
      T result = onStore.get();
      health.succeeded();
      return result;
    } catch (StoreUnavailableException e) {
      health.failed(e);
      if (policy != FailurePolicy.LOCAL) {
        throw e;
      }
      return onLocal.get();
    }
  }

  /** The store failure inside an async failure, or a wrapper naming it. */
  private static StoreUnavailableException unavailable(Throwable failure) {
    Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    if (cause instanceof StoreUnavailableException unavailable) {
      return unavailable;
    }
    if (cause instanceof RuntimeException runtime) {
      throw runtime;
    }
    throw new CompletionException(cause);
  }

  private static <T> CompletionStage<T> completed(Supplier<T> call) {
    try {
      return CompletableFuture.completedFuture(call.get());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** The store's own key space, for calls the store decides all at once. */
  KeySpace store() {
    return store;
  }
}

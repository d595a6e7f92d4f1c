package dev.ratelimit.limiter;

import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.internal.Futures;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The one guard around a store that can fail: asks it while it answers, and when it doesn't
 * ({@link StoreUnavailableException}) or is known to be down ({@link StoreHealth}), answers
 * without it. One key's decisions and all-or-nothing calls go through it alike.
 */
final class FailureGuard {
  private final StoreHealth health;

  FailureGuard(StoreHealth health) {
    this.health = health;
  }

  StoreHealth health() {
    return health;
  }

  /** The store's answer; while it is down, or when it fails now, {@code withoutStore}'s. */
  <T> T call(Supplier<T> onStore, Supplier<T> withoutStore) {
    if (!health.skipStore()) {
      try {
        T result = onStore.get();
        health.succeeded();
        return result;
      } catch (StoreUnavailableException e) {
        health.failed(e);
      }
    }
    return withoutStore.get();
  }

  /** {@link #call} for stores that answer later. */
  <T> CompletionStage<T> callAsync(Supplier<CompletionStage<T>> onStore, Supplier<CompletionStage<T>> withoutStore) {
    if (health.skipStore()) {
      return withoutStore.get();
    }
    return onStore.get().handle((result, failure) -> {
      if (failure == null) {
        health.succeeded();
        return CompletableFuture.completedFuture(result);
      }
      health.failed(unavailable(failure));
      return withoutStore.get();
    }).thenCompose(stage -> stage);
  }

  /** The store's answer, always asked; its failure is recorded and passed on. */
  <T> T tryStore(Supplier<T> onStore) {
    try {
      T result = onStore.get();
      health.succeeded();
      return result;
    } catch (StoreUnavailableException e) {
      health.failed(e);
      throw e;
    }
  }

  /** {@link #tryStore} for stores that answer later. */
  <T> CompletionStage<T> tryStoreAsync(Supplier<CompletionStage<T>> onStore) {
    return onStore.get().handle((result, failure) -> {
      if (failure == null) {
        health.succeeded();
        return CompletableFuture.completedFuture(result);
      }
      StoreUnavailableException unavailable = unavailable(failure);
      health.failed(unavailable);
      return CompletableFuture.<T>failedFuture(unavailable);
    }).thenCompose(stage -> stage);
  }

  /** The store failure inside an async failure; any other failure is passed on as it is. */
  private static StoreUnavailableException unavailable(Throwable failure) {
    Throwable cause = Futures.cause(failure);
    if (cause instanceof StoreUnavailableException unavailable) {
      return unavailable;
    }
    if (cause instanceof RuntimeException runtime) {
      throw runtime;
    }
    throw new CompletionException(cause);
  }
}

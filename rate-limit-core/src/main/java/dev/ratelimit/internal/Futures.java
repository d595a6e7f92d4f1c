package dev.ratelimit.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/** The small pieces every asynchronous path shares. */
public final class Futures {
  private Futures() {}

  /** A synchronous call as a completed stage: its result, or the exception it threw. */
  public static <T> CompletionStage<T> completed(Supplier<T> call) {
    try {
      return CompletableFuture.completedFuture(call.get());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** The failure a stage completed with, without the {@link CompletionException} around it. */
  public static Throwable cause(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
  }

  /** Waits for a stage; its failure as the synchronous call would have thrown it. */
  public static <T> T join(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }
}

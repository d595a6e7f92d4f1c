package dev.ratelimit.bucket4j;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.algorithm.LimitKind;
import dev.ratelimit.internal.Futures;
import dev.ratelimit.store.KeySpace;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.UninterruptibleBlockingStrategy;
import io.github.bucket4j.VerboseResult;
import io.github.bucket4j.distributed.AsyncBucketProxy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * The keys of one limit as bucket4j buckets: each call is one bucket4j operation on one bucket,
 * atomic in bucket4j (a compare-and-set locally, an entry processor or a compare-and-swap script
 * remotely), and its verbose result becomes the decision.
 *
 * <p>A key's bucket is stored under {@code name:fingerprint:key}: the fingerprint changes with the
 * limit's shape, so binding the name to another limit starts from fresh state instead of reading
 * buckets of the old one.
 */
final class Bucket4jKeySpace implements KeySpace {
  /** bucket4j reservations "park" the caller for their wait; here the caller waits itself. */
  private static final UninterruptibleBlockingStrategy NO_PARKING = nanos -> {};
  /** Tries at a reservation bucket4j refused within its bounds: the state may change between them. */
  private static final int MAX_ATTEMPTS = 3;

  private final String name;
  private final BucketMapping mapping;
  private final Buckets buckets;
  private final String prefix;
  private final BucketConfiguration shared;
  /** How deep in debt a take may leave a bucket, in tokens (docs/design.md §2.4). */
  private final long debtTokens;

  Bucket4jKeySpace(String name, BucketMapping mapping, Buckets buckets) {
    this.name = name;
    this.mapping = mapping;
    this.buckets = buckets;
    this.prefix = name + ':' + mapping.fingerprint() + ':';
    this.shared = mapping.sameForEveryKey() ? mapping.configuration("") : null;
    this.debtTokens = mapping.tokens(LimitKind.debtBound(mapping.limit()), false);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Limit limit() {
    return mapping.limit();
  }

  /** Where a key's bucket is stored. */
  String stateKey(String key) {
    return prefix + key;
  }

  private Supplier<BucketConfiguration> configuration(String key) {
    return shared != null ? () -> shared : () -> mapping.configuration(key);
  }

  private Bucket bucket(String key, boolean changes) {
    return buckets.bucket(stateKey(key), configuration(key), changes);
  }

  @Override
  public Decision apply(String key, Operation op, double count, long maxWaitMillis) {
    long tokens = mapping.tokens(count, true);
    return call(() -> switch (op) {
      case LIMIT -> tokens == 0 ? look(bucket(key, false))
          : DecisionMapping.limit(bucket(key, true).asVerbose().tryConsumeAndReturnRemaining(tokens), mapping, tokens);
      case CHECK -> tokens == 0 ? look(bucket(key, false))
          : DecisionMapping.check(bucket(key, false).asVerbose().estimateAbilityToConsume(tokens), mapping, tokens);
      case RESERVE -> reserve(bucket(key, tokens > 0), tokens, maxWaitMillis);
      case TAKE -> take(bucket(key, tokens > 0), tokens);
    });
  }

  private Decision look(Bucket bucket) {
    return DecisionMapping.look(reading(bucket.asVerbose().getAvailableTokens()));
  }

  /**
   * A reservation: bucket4j reserves when the wait to repay it is within a bound (the caller's
   * wait and {@code maxReserved}'s). The rare reservation it makes beyond them (a bound in whole
   * nanoseconds or windows is a little coarser than one in units) is given back at once; the rare
   * one it refuses within them (a fixed window whose stored window is ahead of this caller's
   * clock waits longer than the bound allows for) is tried again with the wait it needs.
   */
  private Decision reserve(Bucket bucket, long tokens, long maxWaitMillis) {
    if (tokens == 0) {
      return reserveNothing(reading(bucket.asVerbose().getAvailableTokens()), maxWaitMillis);
    }
    long bound = mapping.reservationBoundNanos(maxWaitMillis);
    for (int attempt = 1; ; attempt++) {
      VerboseResult<Boolean> result = bound == 0 ? bucket.asVerbose().tryConsume(tokens)
          : bucket.asBlocking().asVerbose().tryConsumeUninterruptibly(tokens, bound, NO_PARKING);
      BucketReading reading = reading(result);
      if (result.getValue()) {
        Decision decision = reserved(reading, maxWaitMillis);
        return decision != null ? decision
            : DecisionMapping.reserveDenied(reading(bucket.asVerbose().addTokens(tokens)), tokens, maxWaitMillis);
      }
      long needed = boundNeeded(reading, tokens, maxWaitMillis);
      if (needed <= bound || attempt == MAX_ATTEMPTS) {
        return DecisionMapping.reserveDenied(reading, tokens, maxWaitMillis);
      }
      bound = needed;
    }
  }

  /**
   * A reservation of 0 units: admitted once the key is out of debt, if the caller waits that long;
   * denied, as a reservation that does not fit, while the key is deeper in debt than
   * {@code maxReserved} (a take may go deeper).
   */
  private Decision reserveNothing(BucketReading now, long maxWaitMillis) {
    long deepest = mapping.maxReservedTokens();
    if (deepest != Long.MAX_VALUE && now.tokens() < -deepest) {
      return DecisionMapping.reserveDenied(now, 0, maxWaitMillis);
    }
    long wait = now.millisUntil(0);
    return wait <= maxWaitMillis ? DecisionMapping.reserved(now, wait) : DecisionMapping.reserveDenied(now, 0, maxWaitMillis);
  }

  /**
   * The decision of a reservation bucket4j made; {@code null} when it went beyond
   * {@code maxReserved} or the caller's wait, and must be given back.
   */
  private Decision reserved(BucketReading after, long maxWaitMillis) {
    long wait = after.millisUntil(0);
    boolean withinDebt = mapping.maxReservedTokens() == Long.MAX_VALUE || after.tokens() >= -mapping.maxReservedTokens();
    return wait <= maxWaitMillis && withinDebt ? DecisionMapping.reserved(after, wait) : null;
  }

  /**
   * The bound bucket4j needs to make a reservation it refused, if it fits within
   * {@code maxReserved} and the caller's wait: its wait, in nanoseconds; 0 if it doesn't fit.
   */
  private long boundNeeded(BucketReading before, long tokens, long maxWaitMillis) {
    long deepest = mapping.maxReservedTokens();
    if (deepest != Long.MAX_VALUE && before.tokens() < tokens - deepest) {
      return 0;
    }
    long wait = before.taking(tokens).millisUntil(0);
    return wait > maxWaitMillis || wait >= BucketReading.NEVER ? 0 : Math.max(1, wait) * 1_000_000L;
  }

  /**
   * A take: {@code consumeIgnoringRateLimits}, which bucket4j applies whatever the bucket holds;
   * then, if that left the bucket deeper in debt than the bound, {@code addTokens} gives back
   * what is beyond it in whole tokens (at most what this take took). Two operations, not one
   * (README: differences): between them the bucket is deeper than the bound for that instant,
   * and takes racing on a bucket each give back what they took beyond it, so that the bucket ends
   * at the bound as one take after the other leaves it. A count of more than the capacity and the
   * bound together is taken as that many tokens: the rest would be given back anyway.
   */
  private Decision take(Bucket bucket, long tokens) {
    if (tokens == 0) {
      return look(bucket);
    }
    long taking = taking(tokens);
    VerboseResult<Long> result;
    try {
      result = bucket.asVerbose().consumeIgnoringRateLimits(taking);
    } catch (IllegalArgumentException e) {
      throw tooLongToRepay(taking, e);
    }
    BucketReading after = taken(result, taking);
    long beyond = beyondTheBound(after, taking);
    return DecisionMapping.look(beyond > 0 ? reading(bucket.asVerbose().addTokens(beyond)) : after);
  }

  private CompletableFuture<Decision> takeAsync(AsyncBucketProxy bucket, long tokens) {
    if (tokens == 0) {
      return lookAsync(bucket);
    }
    long taking = taking(tokens);
    return bucket.asVerbose().consumeIgnoringRateLimits(taking).handle((result, failure) -> {
      if (failure == null) {
        return result;
      }
      Throwable cause = Futures.cause(failure);
      throw cause instanceof IllegalArgumentException e ? tooLongToRepay(taking, e) : new CompletionException(cause);
    }).thenCompose(result -> {
      BucketReading after = taken(result, taking);
      long beyond = beyondTheBound(after, taking);
      return beyond > 0 ? bucket.asVerbose().addTokens(beyond).thenApply(r -> DecisionMapping.look(reading(r)))
          : CompletableFuture.completedFuture(DecisionMapping.look(after));
    });
  }

  /** The tokens to take for a count: no more than a full bucket can owe at the bound. */
  private long taking(long tokens) {
    long most = mapping.capacityTokens() + debtTokens;
    return most < 0 || tokens < most ? tokens : most;
  }

  /**
   * The bucket after bucket4j's {@code consumeIgnoringRateLimits}. bucket4j takes nothing when
   * the wait to repay the debt would not fit in its nanoseconds (about 292 years): it answers
   * "never" ({@code Long.MAX_VALUE}), or a local bucket throws.
   */
  private BucketReading taken(VerboseResult<Long> result, long taking) {
    if (result.getValue() == Long.MAX_VALUE) {
      throw tooLongToRepay(taking, null);
    }
    return reading(result);
  }

  private UnsupportedOperationException tooLongToRepay(long taking, Throwable cause) {
    UnsupportedOperationException refused = new UnsupportedOperationException("the bucket4j store can't take "
        + mapping.units(taking) + " units into debt on limit '" + name + "' (a " + mapping.limit().kind()
        + "): bucket4j counts the wait to repay a debt in nanoseconds, and this one would take longer than about "
        + "292 years");
    refused.initCause(cause);
    return refused;
  }

  /** Tokens the bucket owes beyond the debt bound after a take, at most what the take took. */
  private long beyondTheBound(BucketReading after, long taking) {
    long beyond = -debtTokens - after.tokens();
    return beyond > 0 ? Math.min(beyond, taking) : 0;
  }

  @Override
  public void reset(String key) {
    call(() -> {
      buckets.remove(stateKey(key));
      return null;
    });
  }

  @Override
  public Decision refund(String key, double count) {
    long tokens = mapping.tokens(count, false);
    return call(() -> {
      Bucket bucket = bucket(key, tokens > 0);
      return DecisionMapping.look(reading(tokens > 0 ? bucket.asVerbose().addTokens(tokens)
          : bucket.asVerbose().getAvailableTokens()));
    });
  }

  @Override
  public CompletionStage<Decision> applyAsync(String key, Operation op, double count, long maxWaitMillis) {
    Buckets.Async async = buckets.async();
    if (async == null) {
      return KeySpace.super.applyAsync(key, op, count, maxWaitMillis);
    }
    long tokens = mapping.tokens(count, true);
    return callAsync(() -> {
      AsyncBucketProxy bucket = async.bucket(stateKey(key), configuration(key));
      return switch (op) {
        case LIMIT -> tokens == 0 ? lookAsync(bucket)
            : bucket.asVerbose().tryConsumeAndReturnRemaining(tokens).thenApply(r -> DecisionMapping.limit(r, mapping, tokens));
        case CHECK -> tokens == 0 ? lookAsync(bucket)
            : bucket.asVerbose().estimateAbilityToConsume(tokens).thenApply(r -> DecisionMapping.check(r, mapping, tokens));
        case RESERVE -> reserveAsync(bucket, tokens, maxWaitMillis);
        case TAKE -> takeAsync(bucket, tokens);
      };
    });
  }

  private CompletableFuture<Decision> lookAsync(AsyncBucketProxy bucket) {
    return bucket.asVerbose().getAvailableTokens().thenApply(r -> DecisionMapping.look(reading(r)));
  }

  private CompletableFuture<Decision> reserveAsync(AsyncBucketProxy bucket, long tokens, long maxWaitMillis) {
    if (tokens == 0) {
      return bucket.asVerbose().getAvailableTokens().thenApply(r -> reserveNothing(reading(r), maxWaitMillis));
    }
    return reserveAsync(bucket, tokens, maxWaitMillis, mapping.reservationBoundNanos(maxWaitMillis), 1);
  }

  /** {@link #reserve} without blocking a thread. */
  private CompletableFuture<Decision> reserveAsync(AsyncBucketProxy bucket, long tokens, long maxWaitMillis, long bound,
      int attempt) {
    CompletableFuture<VerboseResult<Boolean>> result = bound == 0 ? bucket.asVerbose().tryConsume(tokens)
        : bucket.asScheduler().asVerbose().tryConsume(tokens, bound, NoWaitScheduler.INSTANCE);
    return result.thenCompose(r -> {
      BucketReading reading = reading(r);
      if (r.getValue()) {
        Decision decision = reserved(reading, maxWaitMillis);
        return decision != null ? CompletableFuture.completedFuture(decision) : bucket.asVerbose().addTokens(tokens)
            .thenApply(back -> DecisionMapping.reserveDenied(reading(back), tokens, maxWaitMillis));
      }
      long needed = boundNeeded(reading, tokens, maxWaitMillis);
      return needed <= bound || attempt == MAX_ATTEMPTS
          ? CompletableFuture.completedFuture(DecisionMapping.reserveDenied(reading, tokens, maxWaitMillis))
          : reserveAsync(bucket, tokens, maxWaitMillis, needed, attempt + 1);
    });
  }

  @Override
  public CompletionStage<Void> resetAsync(String key) {
    Buckets.Async async = buckets.async();
    if (async == null) {
      return KeySpace.super.resetAsync(key);
    }
    return callAsync(() -> async.remove(stateKey(key)));
  }

  @Override
  public CompletionStage<Decision> refundAsync(String key, double count) {
    Buckets.Async async = buckets.async();
    if (async == null) {
      return KeySpace.super.refundAsync(key, count);
    }
    long tokens = mapping.tokens(count, false);
    return callAsync(() -> {
      AsyncBucketProxy bucket = async.bucket(stateKey(key), configuration(key));
      return tokens > 0
          ? bucket.asVerbose().addTokens(tokens).thenApply(r -> DecisionMapping.look(reading(r)))
          : lookAsync(bucket);
    });
  }

  private BucketReading reading(VerboseResult<?> result) {
    return BucketReading.of(result, mapping);
  }

  /** Runs a bucket4j call; on a remote backend, a failure means the store can't decide. */
  private <T> T call(Supplier<T> call) {
    try {
      return call.get();
    } catch (RuntimeException e) {
      throw unavailable(e);
    }
  }

  private <T> CompletableFuture<T> callAsync(Supplier<CompletableFuture<T>> call) {
    CompletableFuture<T> future;
    try {
      future = call.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(unavailable(e));
    }
    return future.handle((value, failure) -> {
      if (failure != null) {
        throw unavailable(failure);
      }
      return value;
    });
  }

  /**
   * What a failure means: on a remote backend, anything but a misuse of bucket4j (an
   * {@link IllegalArgumentException}) or a request this store refuses (an
   * {@link UnsupportedOperationException}) is a backend that could not be reached or did not
   * answer in time; locally, failures pass unchanged.
   */
  private RuntimeException unavailable(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof StoreUnavailableException unavailable) {
      return unavailable;
    }
    if (!buckets.remote() || cause instanceof IllegalArgumentException || cause instanceof UnsupportedOperationException) {
      return cause instanceof RuntimeException runtime ? runtime : new CompletionException(cause);
    }
    return new StoreUnavailableException("bucket4j could not decide for limit '" + name + "': " + cause, cause);
  }

  @Override
  public String toString() {
    return name + " = " + mapping.limit() + " on bucket4j (" + mapping.tokensPerUnit() + " tokens per unit)";
  }
}

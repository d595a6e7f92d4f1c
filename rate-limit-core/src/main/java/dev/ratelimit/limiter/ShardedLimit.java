package dev.ratelimit.limiter;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;
import dev.ratelimit.algorithm.LimitKind;
import dev.ratelimit.internal.Futures;
import dev.ratelimit.store.KeySpace;
import dev.ratelimit.store.RateLimitStore.Charge;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A hot key split into {@code shards} sub-keys ({@code key#0 …}), each with {@code rate/N} and
 * {@code capacity/N}, so that concurrent requests on one key rarely touch the same state. Each
 * request looks at two shards at random and draws on the fuller one, splitting itself across both
 * when neither alone suffices (power of two choices). Since every shard holds a share of the
 * limit, the whole never admits more than the unsharded limit; it may deny a little earlier, when
 * the two shards looked at are emptier than the rest. Remaining units are estimated from those two.
 */
final class ShardedLimit extends BoundLimit {
  private final Binding binding;
  private final int shards;
  /** How deep in debt a take may leave one shard: its share of the limit's bound. */
  private final double shardDebt;

  ShardedLimit(Binding binding, String name, Limit limit, KeySpace previous) {
    super(binding, name, perShard(limit), limit, previous == null ? null : store -> store.rebind(previous, perShard(limit)));
    this.binding = binding;
    this.shards = limit.shards();
    this.shardDebt = LimitKind.debtBound(perShard(limit));
  }

  /** One shard's share of a limit, as its kind splits it. */
  static Limit perShard(Limit limit) {
    return LimitKind.of(limit).perShard(limit, limit.shards());
  }

  private String shardKey(String key, int shard) {
    return key + '#' + shard;
  }

  /** Two distinct shards at random. */
  private int[] pair() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    int first = random.nextInt(shards);
    int second = random.nextInt(shards - 1);
    return new int[] {first, second >= first ? second + 1 : second};
  }

  /** Two shards looked at: the fuller first. */
  private record Pair(String fuller, Decision fullerLevel, String other, Decision otherLevel) {
    /** The units a request may draw on: what each shard holds above 0. */
    double total() {
      return Math.max(0, fullerLevel.remaining()) + Math.max(0, otherLevel.remaining());
    }

    /** The units the two hold, a debt counted against the other's units: what a decision reports. */
    double sum() {
      return fullerLevel.remaining() + otherLevel.remaining();
    }
  }

  /**
   * Two shards' levels. With {@code waiting} (a synchronous call, and those of the steps below),
   * every store call is made on the caller's thread, which waits for it as a synchronous call
   * does: the flow is written once, and a synchronous caller is never one a store queues without
   * waiting (which it may bound).
   */
  private CompletionStage<Pair> probe(boolean waiting, String key, Report report) {
    int[] pair = pair();
    String a = shardKey(key, pair[0]);
    String b = shardKey(key, pair[1]);
    return on(waiting, a, Operation.CHECK, 0, 0, report).thenCombine(on(waiting, b, Operation.CHECK, 0, 0, report),
        (da, db) -> da.remaining() >= db.remaining() ? new Pair(a, da, b, db) : new Pair(b, db, a, da));
  }

  @Override
  Decision decide(String key, Operation op, double count, long maxWait, Report report) {
    return Futures.join(decide(true, key, op, count, maxWait, report));
  }

  @Override
  CompletionStage<Decision> decideAsync(String key, Operation op, double count, long maxWait, Report report) {
    return decide(false, key, op, count, maxWait, report);
  }

  private CompletionStage<Decision> decide(boolean waiting, String key, Operation op, double count, long maxWait,
      Report report) {
    return probe(waiting, key, report).thenCompose(pair -> switch (op) {
      case RESERVE -> on(waiting, pair.fuller(), Operation.RESERVE, count, maxWait, report)
          .thenApply(d -> scaled(d, d.remaining() + Math.max(0, pair.otherLevel().remaining()), pair));
      // as a limit draws: nothing while the fuller shard is in debt (count 0 reveals a debt)
      case CHECK -> pair.fullerLevel().allowed() && pair.total() >= count
          ? CompletableFuture.completedFuture(admitted(pair, pair.sum()))
          : denied(waiting, pair, count, report);
      case LIMIT -> limitAll(waiting, split(pair, count, raw), split(pair, count, space), report)
          .thenCompose(decisions -> allAllowed(decisions)
          ? CompletableFuture.completedFuture(admitted(pair, pair.sum() - count))
          : denied(waiting, pair, count, report));
      case TAKE -> takeFromShards(waiting, key, pair, count, report);
    });
  }

  private CompletionStage<List<Decision>> limitAll(boolean waiting, List<Charge> raw, List<Charge> guarded,
      Report report) {
    return waiting
        ? Futures.completed(() -> binding.limitAll(raw, guarded, report))
        : binding.limitAllAsync(raw, guarded, report);
  }

  /**
   * A take over the shards: the two looked at owe what they can, the fuller first until both are
   * level, then both alike (so that neither goes into debt before the other is empty), each down
   * to its share of the debt bound; what is beyond those two (a count above what they can owe) is
   * spread over the other shards, each down to its share too. Every part is a take, which no
   * shard refuses: the units taken add up to the count, up to the bound.
   */
  private CompletionStage<Decision> takeFromShards(boolean waiting, String key, Pair pair, double count,
      Report report) {
    double fullerRoom = Math.max(0, pair.fullerLevel().remaining() + shardDebt);
    double otherRoom = Math.max(0, pair.otherLevel().remaining() + shardDebt);
    double intoPair = Math.min(count, fullerRoom + otherRoom);
    double intoFuller = Math.min(intoPair, (intoPair + fullerRoom - otherRoom) / 2);
    CompletionStage<Decision> taken = on(waiting, pair.fuller(), Operation.TAKE, intoFuller, 0, report)
        .thenCombine(on(waiting, pair.other(), Operation.TAKE, intoPair - intoFuller, 0, report), this::settled);
    double beyond = count - intoPair;
    if (beyond <= 0 || shards == 2) {
      return taken;
    }
    List<CompletableFuture<Decision>> rest = new ArrayList<>(shards - 2);
    for (int shard = 0; shard < shards; shard++) {
      String other = shardKey(key, shard);
      if (!other.equals(pair.fuller()) && !other.equals(pair.other())) {
        rest.add(on(waiting, other, Operation.TAKE, beyond / (shards - 2), 0, report).toCompletableFuture());
      }
    }
    return taken.thenCombine(CompletableFuture.allOf(rest.toArray(CompletableFuture<?>[]::new)), (decision, all) -> decision);
  }

  /** The fuller shard alone if it suffices, else all of it and the rest from the other. */
  private static List<Charge> split(Pair pair, double count, KeySpace on) {
    double fromFuller = Math.min(count, Math.max(0, pair.fullerLevel().remaining()));
    List<Charge> charges = new ArrayList<>(2);
    charges.add(new Charge(on, pair.fuller(), fromFuller));
    if (count > fromFuller) {
      charges.add(new Charge(on, pair.other(), count - fromFuller));
    }
    return charges;
  }

  private Decision admitted(Pair pair, double leftInPair) {
    return new Decision(true, leftInPair * shards / 2, limit.capacity(), 0, resetAfter(pair));
  }

  /** Denied: the wait until both shards looked at hold half the count each, never early for them. */
  private CompletionStage<Decision> denied(boolean waiting, Pair pair, double count, Report report) {
    return on(waiting, pair.fuller(), Operation.CHECK, count / 2, 0, report)
        .thenCombine(on(waiting, pair.other(), Operation.CHECK, count / 2, 0, report),
            (a, b) -> new Decision(false, pair.sum() * shards / 2, limit.capacity(),
                Math.max(1, Math.max(a.retryAfterMillis(), b.retryAfterMillis())),
                Math.max(a.resetAfterMillis(), b.resetAfterMillis())));
  }

  private Decision scaled(Decision decision, double leftInPair, Pair pair) {
    return new Decision(decision.allowed(), leftInPair * shards / 2, limit.capacity(),
        decision.retryAfterMillis(), Math.max(decision.resetAfterMillis(), pair.otherLevel().resetAfterMillis()));
  }

  private static long resetAfter(Pair pair) {
    return Math.max(pair.fullerLevel().resetAfterMillis(), pair.otherLevel().resetAfterMillis());
  }

  private static boolean allAllowed(List<Decision> decisions) {
    return decisions.stream().allMatch(Decision::allowed);
  }

  @Override
  void reset(String key) {
    for (int shard = 0; shard < shards; shard++) {
      space.reset(shardKey(key, shard));
    }
  }

  @Override
  CompletionStage<Void> resetAsync(String key) {
    CompletableFuture<?>[] all = new CompletableFuture<?>[shards];
    for (int shard = 0; shard < shards; shard++) {
      all[shard] = space.resetAsync(shardKey(key, shard)).toCompletableFuture();
    }
    return CompletableFuture.allOf(all);
  }

  @Override
  Decision refund(String key, double count) {
    return Futures.join(refund(true, key, count));
  }

  @Override
  CompletionStage<Decision> refundAsync(String key, double count) {
    return refund(false, key, count);
  }

  /** Units go back to the emptier of two shards, the rest (above its capacity) to the other. */
  private CompletionStage<Decision> refund(boolean waiting, String key, double count) {
    checkAmount("refund", count);
    double shardCapacity = limit.capacity() / shards;
    return probe(waiting, key, null).thenCompose(pair -> {
      double intoEmptier = Math.min(count, shardCapacity - pair.otherLevel().remaining());
      double intoFuller = Math.min(count - intoEmptier, shardCapacity - pair.fullerLevel().remaining());
      return refundShard(waiting, pair.other(), Math.max(0, intoEmptier))
          .thenCombine(refundShard(waiting, pair.fuller(), Math.max(0, intoFuller)), this::settled);
    });
  }

  /** A settlement's answer (a refund's, a take's) from those of the two shards it went to: checks for 0 units. */
  private Decision settled(Decision a, Decision b) {
    return new Decision(a.allowed() && b.allowed(), (a.remaining() + b.remaining()) * shards / 2, limit.capacity(),
        Math.max(a.retryAfterMillis(), b.retryAfterMillis()), Math.max(a.resetAfterMillis(), b.resetAfterMillis()));
  }

  private CompletionStage<Decision> refundShard(boolean waiting, String shardKey, double count) {
    return waiting ? Futures.completed(() -> space.refund(shardKey, count)) : space.refundAsync(shardKey, count);
  }

  /** All-or-nothing calls charge the shards chosen now; their decisions combine into one. */
  @Override
  List<Charge> charges(String key, double count) {
    check(Operation.LIMIT, count);
    return split(Futures.join(probe(true, key, null)), count, raw);
  }

  @Override
  Decision combine(List<Decision> decisions) {
    double remaining = 0;
    long retry = 0;
    long reset = 0;
    boolean allowed = true;
    for (Decision d : decisions) {
      allowed &= d.allowed();
      remaining += d.remaining();
      retry = Math.max(retry, d.retryAfterMillis());
      reset = Math.max(reset, d.resetAfterMillis());
    }
    return new Decision(allowed, remaining * shards / decisions.size(), limit.capacity(), retry, reset);
  }
}

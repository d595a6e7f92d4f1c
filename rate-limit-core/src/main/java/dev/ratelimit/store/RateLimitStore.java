package dev.ratelimit.store;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;
import dev.ratelimit.internal.Futures;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Where limits keep their per-key state (SPI). A store applies one algorithm step to one key
 * atomically, reading its own clock, and returns the decision. Implementations: the embedded
 * {@link InMemoryStore} (the default), Redis, bucket4j. Every store passes the same contract
 * tests and conformance vectors.
 *
 * @since 1.0
 */
public interface RateLimitStore extends AutoCloseable {

  /**
   * Prepares a limit under a name, once; the returned space decides for that limit's keys. The
   * name and the limit together identify the state: binding the same name to another limit
   * starts from fresh state.
   *
   * @throws IllegalArgumentException if this store can't run this kind of limit
   */
  KeySpace bind(String name, Limit limit);

  /**
   * Binds {@code limit} in place of {@code previous} under the same name, while both may serve
   * (a limit changed at runtime, docs/design.md §2.7). Rule: when the two limits' keys read the same
   * ({@link dev.ratelimit.algorithm.LimitKind#sameState}: only {@code mode} or {@code failure}
   * differ), every key keeps its state; otherwise every key starts fresh under {@code limit}.
   * The default binds anew, which is right for stores that key state by name and tell limits
   * apart by a fingerprint of their state parameters (a remote store).
   *
   * @throws IllegalArgumentException as {@link #bind}
   */
  default KeySpace rebind(KeySpace previous, Limit limit) {
    return bind(previous.name(), limit);
  }

  /**
   * Hears that {@code RateLimiter.replace} on this node is about to put {@code limit} in force for
   * a named limit under {@code plan} ({@code null}: the default plan): the limit and plan are
   * known and valid, and neither {@link #rebind} nor any call has seen it yet. A store shared by
   * several nodes may publish the change to the others (the Redis store does, when its limits are
   * synced); throwing refuses the change, and nothing changes. The default does nothing.
   */
  default void replacing(String name, String plan, Limit limit) {}

  /**
   * Binds {@code limit}, another plan of the limit bound as {@code sibling}, on the same state per
   * key (docs/design.md §2.7): a key decided under one plan, then under another, is carried over from
   * the state the first left by the rule of {@link #rebind} (its used units kept, capped by the
   * other plan's capacity), and both plans stay in force. The limiter asks only for limits that
   * {@link dev.ratelimit.algorithm.LimitKind#carriesOver carry over} to the sibling's. The default
   * refuses: a store that cannot convert a state written under another limit says why, and the
   * limiter stops at {@code build()} naming the limit and the plan.
   *
   * @throws UnsupportedOperationException when this store can't share one state between the two
   */
  default KeySpace share(KeySpace sibling, Limit limit) {
    throw new UnsupportedOperationException(getClass().getSimpleName()
        + " can't convert a key's state from one limit to another (" + sibling.limit() + " and " + limit + ")");
  }

  /** One part of an all-or-nothing call. */
  record Charge(KeySpace space, String key, double count) {}

  /**
   * Consumes every charge or none. The default applies them in order and, at the first denial,
   * gives back what it took; stores that can decide all at once override it.
   *
   * @return one decision per charge, in order; when denied, the others are checks
   */
  default List<Decision> limitAll(List<Charge> charges) {
    return limitInOrder(charges);
  }

  /**
   * All or nothing, one charge at a time: applies them in order and, at the first denial, gives
   * back what it took, whatever stores the charges' spaces live in.
   *
   * @return one decision per charge, in order; when denied, the others are checks
   */
  static List<Decision> limitInOrder(List<Charge> charges) {
    List<Decision> decisions = new ArrayList<>(charges.size());
    for (int i = 0; i < charges.size(); i++) {
      Charge charge = charges.get(i);
      Decision decision = charge.space().apply(charge.key(), Operation.LIMIT, charge.count(), 0);
      if (!decision.allowed()) {
        for (int j = 0; j < i; j++) {
          Charge taken = charges.get(j);
          taken.space().refund(taken.key(), taken.count());
        }
        return checkAllBut(charges, i, decision);
      }
      decisions.add(decision);
    }
    return decisions;
  }

  /**
   * {@link #limitInOrder} without blocking, for stores that answer later: charge by charge, each
   * after the one before has answered, giving back what was taken at the first denial.
   *
   * @return one decision per charge, in order; when denied, the others are checks
   */
  static CompletionStage<List<Decision>> limitInOrderAsync(List<Charge> charges) {
    return limitInOrderAsync(charges, 0, new ArrayList<>(charges.size()));
  }

  private static CompletionStage<List<Decision>> limitInOrderAsync(List<Charge> charges, int at, List<Decision> taken) {
    if (at == charges.size()) {
      return CompletableFuture.completedFuture(taken);
    }
    Charge charge = charges.get(at);
    return charge.space().applyAsync(charge.key(), Operation.LIMIT, charge.count(), 0).thenCompose(decision -> {
      if (decision.allowed()) {
        taken.add(decision);
        return limitInOrderAsync(charges, at + 1, taken);
      }
      CompletableFuture<?>[] refunds = new CompletableFuture<?>[at];
      for (int j = 0; j < at; j++) {
        Charge back = charges.get(j);
        refunds[j] = back.space().refundAsync(back.key(), back.count()).toCompletableFuture();
      }
      return CompletableFuture.allOf(refunds).thenCompose(givenBack -> {
        List<CompletableFuture<Decision>> all = new ArrayList<>(charges.size());
        for (int j = 0; j < charges.size(); j++) {
          Charge other = charges.get(j);
          all.add(j == at ? CompletableFuture.completedFuture(decision)
              : other.space().applyAsync(other.key(), Operation.CHECK, other.count(), 0).toCompletableFuture());
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture<?>[]::new))
            .thenApply(checked -> all.stream().map(CompletableFuture::join).toList());
      });
    });
  }

  /** The all-or-nothing call, asynchronously. */
  default CompletionStage<List<Decision>> limitAllAsync(List<Charge> charges) {
    return Futures.completed(() -> limitAll(charges));
  }

  /** The decisions of a denied all-or-nothing call: the denial, and checks for the others. */
  static List<Decision> checkAllBut(List<Charge> charges, int denied, Decision denial) {
    List<Decision> decisions = new ArrayList<>(charges.size());
    for (int i = 0; i < charges.size(); i++) {
      Charge charge = charges.get(i);
      decisions.add(i == denied ? denial
          : charge.space().apply(charge.key(), Operation.CHECK, charge.count(), 0));
    }
    return decisions;
  }

  /**
   * Whether this store can be unavailable ({@link dev.ratelimit.StoreUnavailableException}). A
   * store that can't (the in-memory one) is asked directly, without failure policies around it.
   */
  default boolean canFail() {
    return true;
  }

  /** Releases connections and the like; the in-memory store holds none. */
  @Override
  default void close() {}
}

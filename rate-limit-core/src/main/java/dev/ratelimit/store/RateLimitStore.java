package dev.ratelimit.store;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Where limits keep their per-key state (SPI). A store applies one algorithm step to one key
 * atomically, reading its own clock, and returns the decision. Implementations: the embedded
 * {@link InMemoryStore} (the default), Redis, bucket4j. Every store passes the same contract
 * tests and conformance vectors.
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

  /** The all-or-nothing call, asynchronously. */
  default CompletionStage<List<Decision>> limitAllAsync(List<Charge> charges) {
    try {
      return CompletableFuture.completedFuture(limitAll(charges));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
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

  /** Releases connections and the like; the in-memory store holds none. */
  @Override
  default void close() {}
}

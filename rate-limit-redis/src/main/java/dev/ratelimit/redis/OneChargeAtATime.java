package dev.ratelimit.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.store.Operation;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.RateLimitStore.Charge;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * {@link RateLimitStore#limitInOrder} without blocking a thread: charge by charge, and at the
 * first denial the charges taken are given back and the others checked. All or nothing, though
 * not at one instant: for a Cluster call whose keys live in several slots.
 */
final class OneChargeAtATime {
  private OneChargeAtATime() {}

  static CompletableFuture<List<Decision>> limitAll(List<Charge> charges) {
    return from(charges, 0, new ArrayList<>());
  }

  private static CompletableFuture<List<Decision>> from(List<Charge> charges, int at, List<Decision> taken) {
    if (at == charges.size()) {
      return CompletableFuture.completedFuture(taken);
    }
    Charge charge = charges.get(at);
    return charge.space().applyAsync(charge.key(), Operation.LIMIT, charge.count(), 0).toCompletableFuture()
        .thenCompose(decision -> {
          if (decision.allowed()) {
            taken.add(decision);
            return from(charges, at + 1, taken);
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
                .thenApply(checked -> all.stream().map(CompletableFuture::join).collect(Collectors.toList()));
          });
        });
  }
}

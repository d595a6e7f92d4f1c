package dev.ratelimit.bucket4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hazelcast.core.HazelcastInstance;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;
import dev.ratelimit.store.KeySpace;
import io.github.bucket4j.grid.jcache.Bucket4jJCache;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A member of the Hazelcast cluster leaving mid-run loses no admitted count: limit calls on one
 * hot key, whose bucket the leaving member owns, go on while that member shuts down; its
 * partitions move to the other member (one synchronous backup each). The calls go on until the
 * bucket is empty; then no more than the capacity was admitted, and nothing was lost.
 *
 * <p>Hazelcast may run an entry processor that was in flight when its member left a second time
 * on the new owner (hazelcast/hazelcast#12952: the invocation is retried on the member-left event
 * although it ran): bucket4j's commands are not idempotent, so such a call's tokens are taken
 * twice. The bucket may therefore hold less than the capacity less what was admitted, by at most
 * one call per caller (each has one call in flight), never more: it errs towards denying.
 */
class HazelcastMemberLeavingIT {
  private static final int CAPACITY = 20_000;
  private static final int THREADS = 4;

  @Test
  void aMemberLeavingMidRun_losesNoAdmittedCountAndCountsNoneTwice() throws Exception {
    try (HazelcastCluster cluster = HazelcastCluster.start(2)) {
      HazelcastInstance staying = cluster.member(0);
      HazelcastInstance leaving = cluster.member(1);
      Bucket4jStore store = Bucket4jStore.of(Bucket4jJCache.entryProcessorBasedBuilder(cluster.cache(0, "buckets")).build());
      // refill negligible: one unit a year
      Bucket4jKeySpace space = (Bucket4jKeySpace) store.bind("leave",
          Limit.parse("token-bucket rate=1 period=365d capacity=" + CAPACITY));
      String key = keyOwnedBy(leaving, space);

      AtomicInteger admitted = new AtomicInteger();
      AtomicInteger denied = new AtomicInteger();
      AtomicBoolean stop = new AtomicBoolean();
      ExecutorService callers = Executors.newFixedThreadPool(THREADS);
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        running.add(callers.submit(() -> {
          while (!stop.get()) {
            if (space.apply(key, Operation.LIMIT, 1, 0).allowed()) {
              admitted.incrementAndGet();
            } else {
              denied.incrementAndGet();
            }
          }
          return null;
        }));
      }
      try {
        await().atMost(Duration.ofMinutes(1)).until(() -> admitted.get() >= 1_000);
        CompletableFuture<Void> leave = CompletableFuture.runAsync(() -> leaving.getLifecycleService().shutdown());
        int atLeave = admitted.get();
        await().atMost(Duration.ofMinutes(2)).until(leave::isDone);
        leave.join();
        int afterLeave = admitted.get();
        await().atMost(Duration.ofMinutes(1)).until(() -> staying.getCluster().getMembers().size() == 1);
        assertThat(afterLeave).as("admitted while the member was leaving").isGreaterThan(atLeave);
        // calls go on, on the member that stayed, until the bucket is empty
        await().atMost(Duration.ofMinutes(2)).until(() -> denied.get() > 0);
      } finally {
        stop.set(true);
        for (Future<?> caller : running) {
          caller.get(1, TimeUnit.MINUTES); // rethrows any failure: none is expected
        }
        callers.shutdownNow();
      }

      double remaining = space.apply(key, Operation.CHECK, 0, 0).remaining();
      assertThat(admitted.get()).isLessThanOrEqualTo(CAPACITY);
      double counted = CAPACITY - remaining;
      assertThat(counted).as("nothing lost: every admitted call is counted").isGreaterThan(admitted.get() - 0.01);
      assertThat(counted).as("calls in flight at the departure may be counted twice, none more")
          .isLessThan(admitted.get() + THREADS + 0.01);
    }
  }

  /** A key whose bucket lives on {@code member}'s partitions, so that its departure moves it. */
  private static String keyOwnedBy(HazelcastInstance member, Bucket4jKeySpace space) {
    // Hazelcast assigns partitions on first use, and a partition has no owner until then (a
    // fresh cluster's first lookups saw null): wait until every one is owned and backed up
    await().atMost(Duration.ofMinutes(1)).until(() -> member.getPartitionService().getPartitions().stream()
        .allMatch(partition -> partition.getOwner() != null) && member.getPartitionService().isClusterSafe());
    for (int i = 0; ; i++) {
      String key = "hot-" + i;
      if (member.getPartitionService().getPartition(space.stateKey(key)).getOwner().localMember()) {
        return key;
      }
    }
  }
}

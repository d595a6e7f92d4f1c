package dev.ratelimit.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.Concurrently;
import dev.ratelimit.limiter.RateLimiter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Memory stays bounded: fresh keys go, {@code maxKeys} caps the rest, and no thread is started. */
class InMemoryStoreBoundsTest {
  private final ManualClock clock = new ManualClock(1_767_225_600_000L);

  @Tag("flood")
  @Test
  void keyFlood_twoMillionKeysThroughAHundredThousandBound_keepsAtMostTheBound() {
    InMemoryStore store = new InMemoryStore(clock, 100_000);
    RateLimiter limiter = RateLimiter.builder().clock(clock).store(store)
        .limit("api", "token-bucket rate=1000 period=365d").limit("flood", "gcra rate=10 period=1h").build();
    limiter.named("api").limit("heavy-user", 900);
    long largest = 0;
    for (int i = 0; i < 2_000_000; i++) {
      limiter.named("flood").limit("client-" + i, 1);
      if (i % 1000 == 0) {
        largest = Math.max(largest, store.size());
      }
    }
    assertThat(store.size()).isLessThanOrEqualTo(100_000);
    assertThat(largest).isLessThanOrEqualTo(100_000);
    assertThat(limiter.named("api").check("heavy-user", 0).remaining())
        .as("the heavy user keeps its 100 left, held or back from its sketch").isEqualTo(100);
  }

  /**
   * Huge takes on 200,000 distinct keys (a client settling absurd costs under fresh keys): each
   * key holds one capacity of debt at most, and the store at most its bound of keys.
   */
  @Test
  void takeFlood_ofHugeCountsOnDistinctKeys_keepsAtMostTheBound() {
    InMemoryStore store = new InMemoryStore(clock, 10_000);
    RateLimiter limiter = RateLimiter.builder().clock(clock).store(store)
        .limit("tokens", "token-bucket rate=1000 period=1h").limit("window", "sliding-log rate=1000 period=1h").build();
    for (int i = 0; i < 200_000; i++) {
      limiter.named(i % 2 == 0 ? "tokens" : "window").take("client-" + i, i % 3 == 0 ? 1e308 : Long.MAX_VALUE);
    }
    assertThat(store.size()).isLessThanOrEqualTo(10_000);
    assertThat(limiter.named("tokens").check("client-199998", 0).remaining()).isEqualTo(-1000);
    assertThat(limiter.named("window").check("client-199999", 0).remaining()).isEqualTo(-1000);
  }

  @Test
  void freshKeys_areDroppedAsNewKeysArrive() {
    InMemoryStore store = new InMemoryStore(clock, 1_000_000);
    RateLimiter limiter = RateLimiter.builder().clock(clock).store(store)
        .limit("tb", "token-bucket rate=10 period=1s").limit("sw", "sliding-window rate=10 period=1s").build();
    for (int i = 0; i < 5000; i++) {
      limiter.named("tb").limit("a" + i, 1);
      limiter.named("sw").limit("a" + i, 1);
    }
    assertThat(store.size()).isEqualTo(10_000);
    clock.advanceMillis(1100); // every key above is fresh again: full bucket, window slid out
    for (int i = 0; i < 10_000; i++) {
      limiter.named("tb").limit("b" + i, 1);
    }
    assertThat(store.size()).as("the 10,000 fresh keys went; the 10,000 live ones stay").isEqualTo(10_000);
    assertThat(limiter.named("tb").check("a1", 10).allowed()).as("a dropped key decides as a fresh one").isTrue();
    assertThat(limiter.named("tb").check("b1", 10).allowed()).as("a live key keeps its state").isFalse();
  }

  @Test
  void keepingEveryKey_keepsStateForCallsFromAnEarlierTime() {
    for (boolean keepsEveryKey : new boolean[] {true, false}) {
      ManualClock replay = new ManualClock(10_000);
      InMemoryStore store = keepsEveryKey ? InMemoryStore.keepingEveryKey(replay) : new InMemoryStore(replay);
      RateLimiter limiter = RateLimiter.builder().clock(replay).store(store).limit("l", "gcra rate=1 period=1s").build();
      limiter.named("l").limit("early", 1);
      replay.setMillis(20_000); // "early" is fresh from here on, so a sweep may drop it
      for (int i = 0; i < 5000; i++) {
        limiter.named("l").limit("k" + i, 1);
      }
      replay.setMillis(10_001); // a trace going back: GCRA reads this time as given
      assertThat(limiter.named("l").limit("early", 1).allowed()).as("keeps every key: " + keepsEveryKey)
          .isEqualTo(!keepsEveryKey);
    }
  }

  @Test
  void store_startsNoThreads() {
    Set<String> before = threadNames();
    InMemoryStore store = new InMemoryStore(clock, 1000);
    RateLimiter limiter = RateLimiter.builder().clock(clock).store(store).limit("l", "10/1s").build();
    for (int i = 0; i < 50_000; i++) {
      limiter.named("l").limit("k" + i, 1);
      clock.advanceMillis(1);
    }
    assertThat(threadNames()).isSubsetOf(before);
  }

  @Test
  void maxKeys_belowOneIsRefused() {
    assertThatThrownBy(() -> new InMemoryStore(clock, 0)).hasMessage("maxKeys must be at least 1 but was 0");
  }

  /**
   * Keys dropped while other threads use them lose nothing. A ticker moves the clock a whole
   * period every few thousand keys, so every hot key turns fresh again and the sweeper (kept busy
   * by a flood of keys) races the threads that are consuming it. A consumption lost to a dropped
   * cell would let a key admit more than its capacity within one period.
   */
  @Test
  void sweeping_whileKeysAreInUse_losesNoUpdate() throws Exception {
    InMemoryStore store = new InMemoryStore(clock, 1_000_000);
    RateLimiter limiter = RateLimiter.builder().clock(clock).store(store)
        .limit("hot", "token-bucket rate=3 period=1s").limit("flood", "gcra rate=1 period=1s").build();
    int keys = 64;
    Map<String, AtomicInteger> admittedPerPeriod = new ConcurrentHashMap<>();
    AtomicBoolean running = new AtomicBoolean(true);
    List<Callable<Void>> tasks = new ArrayList<>();
    tasks.add(() -> {
      for (int i = 0; i < 400_000; i++) {
        limiter.named("flood").limit("f" + i, 1);
        if (i % 2000 == 0) {
          clock.advanceMillis(1000); // a new period: every key is fresh again
        }
      }
      running.set(false);
      return null;
    });
    for (int t = 0; t < 3; t++) {
      int seed = t;
      tasks.add(() -> {
        for (int i = 0; running.get(); i++) {
          String key = "k" + (i * 7 + seed) % keys;
          long period = clock.millis();
          boolean allowed = limiter.named("hot").limit(key, 1).allowed();
          if (allowed && clock.millis() == period) {
            admittedPerPeriod.computeIfAbsent(period + "/" + key, p -> new AtomicInteger()).incrementAndGet();
          }
        }
        return null;
      });
    }
    Concurrently.runAll(tasks);
    assertThat(admittedPerPeriod).hasSizeGreaterThan(keys * 10);
    admittedPerPeriod.forEach((periodAndKey, admitted) ->
        assertThat(admitted.get()).as(periodAndKey).isLessThanOrEqualTo(3));
  }

  private static Set<String> threadNames() {
    return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).collect(Collectors.toSet());
  }
}

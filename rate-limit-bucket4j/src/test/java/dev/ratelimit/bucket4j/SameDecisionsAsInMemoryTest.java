package dev.ratelimit.bucket4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ratelimit.Decision;
import dev.ratelimit.FixedWindow;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Operation;
import dev.ratelimit.algorithm.LimitKind;
import dev.ratelimit.store.InMemoryStore;
import dev.ratelimit.store.KeySpace;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random traces through local buckets and through the in-memory store (the reference semantics)
 * give the same decisions: counts in eighths, time going forward and sometimes back, every
 * operation, reservations with and without a wait, takes into debt.
 */
class SameDecisionsAsInMemoryTest {
  private static final String[] KEYS = {"", "a", "b"};

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket rate=125 period=1s capacity=5 maxReserved=3",
      "token-bucket rate=10 period=1m capacity=20", "token-bucket rate=3 period=7s capacity=2 maxReserved=0",
      "fixed-window rate=2 period=1s capacity=5 maxReserved=4", "fixed-window rate=2 period=1s maxReserved=3",
      "fixed-window rate=3 period=250ms phase=random", "fixed-window rate=4 period=1m start=2026-01-01T00:00:30Z"})
  void randomTraces_decideAsTheInMemoryStore(String spec) {
    Limit limit = Limit.parse(spec);
    for (long seed = 1; seed <= 50; seed++) {
      Random random = new Random(seed);
      ManualClock clock = new ManualClock(1_767_225_600_000L + random.nextInt(1_000_000));
      KeySpace ours = Bucket4jStore.local(clock).bind("l", limit);
      KeySpace reference = InMemoryStore.keepingEveryKey(clock).bind("l", limit);
      // the in-memory store keeps a refund's time badly (it doesn't raise the key's stamp), so time
      // goes back no further than the latest refund
      long latestRefund = Long.MIN_VALUE;
      for (int step = 0; step < 300; step++) {
        clock.advanceMillis(random.nextInt(20) == 0 ? -random.nextInt(300) : random.nextInt(400));
        clock.setMillis(Math.max(clock.millis(), latestRefund));
        String key = KEYS[random.nextInt(KEYS.length)];
        String at = spec + ", seed " + seed + ", step " + step + ", t=" + clock.millis() + ", key '" + key + "': ";
        int choice = random.nextInt(12);
        if (choice == 0) {
          ours.reset(key);
          reference.reset(key);
          continue;
        }
        if (choice == 1) {
          double count = random.nextInt(17) / 8.0;
          latestRefund = clock.millis();
          assertSame(at + "refund " + count, ours.refund(key, count), reference.refund(key, count));
          continue;
        }
        if (choice >= 10) {
          // a take, into debt: a fixed window sometimes far past its bound; a token bucket only to
          // the bound, where bucket4j keeps its refilled fraction of a token (README difference 14)
          double count = random.nextInt((int) (20 * limit.capacity()) + 1) / 8.0;
          if (limit instanceof FixedWindow) {
            count = choice == 11 && random.nextBoolean() ? 1e12 : count;
          } else {
            double room = reference.apply(key, Operation.CHECK, 0, 0).remaining() + LimitKind.debtBound(limit);
            count = Math.min(count, Math.floor(Math.max(0, room) * 8) / 8);
          }
          assertSame(at + "take " + count, ours.apply(key, Operation.TAKE, count, 0),
              reference.apply(key, Operation.TAKE, count, 0));
          continue;
        }
        Operation op = choice < 6 ? Operation.LIMIT : choice < 8 ? Operation.CHECK : Operation.RESERVE;
        double largest = limit.capacity() + (op == Operation.RESERVE && !Double.isInfinite(limit.maxReserved()) ? limit.maxReserved() : 0);
        double count = Math.min(largest, random.nextInt((int) (8 * largest) + 1) / 8.0);
        long maxWait = op != Operation.RESERVE || random.nextBoolean() ? Long.MAX_VALUE : random.nextInt(3000);
        assertSame(at + op + " " + count + " maxWait " + maxWait, ours.apply(key, op, count, maxWait),
            reference.apply(key, op, count, maxWait));
      }
    }
  }

  private static void assertSame(String call, Decision ours, Decision reference) {
    assertThat(ours.allowed()).as(call + ours + " vs " + reference).isEqualTo(reference.allowed());
    assertThat(ours.remaining()).as(call + ours + " vs " + reference)
        .isCloseTo(reference.remaining(), within(1e-9 * Math.max(1, Math.abs(reference.remaining()))));
    assertThat(ours.limit()).isEqualTo(reference.limit());
    assertThat(ours.retryAfterMillis()).as(call + ours + " vs " + reference).isEqualTo(reference.retryAfterMillis());
    assertThat(ours.resetAfterMillis()).as(call + ours + " vs " + reference).isEqualTo(reference.resetAfterMillis());
  }
}

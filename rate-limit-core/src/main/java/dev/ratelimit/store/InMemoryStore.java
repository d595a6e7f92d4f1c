package dev.ratelimit.store;

import dev.ratelimit.Clock;
import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.algorithm.LimitKind;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The embedded store, and the default: lock-free per key, bounded memory, no threads.
 *
 * <p>Token bucket, GCRA and fixed window keep one double per key, updated in place by one
 * compare-and-set: a decision on a known key allocates nothing but the {@link Decision}. The other
 * kinds replace an immutable state object per consuming request.
 *
 * <p>Memory stays bounded without a background thread: when the number of keys has doubled since
 * the last sweep, the inserting thread drops every key whose state equals a fresh one (which
 * changes no decision, as this store's clock never goes back); beyond {@code maxKeys}, it evicts
 * the keys closest to fresh, whose loss changes the least.
 */
public final class InMemoryStore implements RateLimitStore {
  /** The default bound on keys over all limits: about 80 MB of state at most, keys aside. */
  public static final int DEFAULT_MAX_KEYS = 1_000_000;
  private static final int FIRST_SWEEP = 1024;

  private final Clock clock;
  private final int maxKeys;
  private final boolean sweeps;
  private final List<InMemoryKeySpace> spaces = new CopyOnWriteArrayList<>();
  private final AtomicLong size = new AtomicLong();
  private final AtomicBoolean sweeping = new AtomicBoolean();
  private volatile long sweepAbove;

  /** A store on the system clock with the default key bound. */
  public InMemoryStore() {
    this(Clock.system());
  }

  public InMemoryStore(Clock clock) {
    this(clock, DEFAULT_MAX_KEYS);
  }

  /**
   * @param maxKeys the most keys kept over all limits; beyond it the keys closest to fresh go
   */
  public InMemoryStore(Clock clock, int maxKeys) {
    this(clock, maxKeys, true);
    if (maxKeys < 1) {
      throw new IllegalArgumentException("maxKeys must be at least 1 but was " + maxKeys);
    }
  }

  private InMemoryStore(Clock clock, int maxKeys, boolean sweeps) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.maxKeys = maxKeys;
    this.sweeps = sweeps;
    this.sweepAbove = Math.min(maxKeys, FIRST_SWEEP);
  }

  /**
   * A store that keeps every key it has seen, for replaying traces on a clock that goes back
   * (the simulator): dropping a key that is fresh now would change a later decision at an
   * earlier time. Memory grows with the keys.
   */
  public static InMemoryStore keepingEveryKey(Clock clock) {
    return new InMemoryStore(clock, Integer.MAX_VALUE, false);
  }

  public Clock clock() {
    return clock;
  }

  public int maxKeys() {
    return maxKeys;
  }

  /** Keys held now, over all limits. */
  public long size() {
    return size.get();
  }

  @Override
  public KeySpace bind(String name, Limit limit) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(limit, "limit");
    LimitKind kind = LimitKind.of(limit);
    InMemoryKeySpace space = kind.inPlace()
        ? new WordKeySpace(this, name, limit, kind.word(limit))
        : ObjectKeySpace.of(this, name, limit, kind.object(limit));
    spaces.add(space);
    return space;
  }

  /**
   * The previous space itself when the keys read the same under both limits (only {@code mode}
   * or {@code failure} differ). For another token bucket, GCRA or fixed window, a space that
   * takes each key over on first touch, its used units kept, capped by the new capacity (every
   * call on the previous space goes to the new one from then on). Otherwise a space of fresh keys,
   * the previous one's left to the sweeps.
   */
  @Override
  public KeySpace rebind(KeySpace previous, Limit limit) {
    InMemoryKeySpace mine = own(previous);
    if (LimitKind.sameState(mine.limit(), limit)) {
      return mine;
    }
    if (mine instanceof WordKeySpace word && LimitKind.carriesOver(mine.limit(), limit)) {
      WordKeySpace next = new WordKeySpace(this, previous.name(), limit, LimitKind.of(limit).word(limit), word);
      spaces.add(next);
      return next;
    }
    return bind(previous.name(), limit);
  }

  /** Never: it is in this process. */
  @Override
  public boolean canFail() {
    return false;
  }

  /** All or nothing at one instant: a denial gives back what was taken at the same time. */
  @Override
  public List<Decision> limitAll(List<Charge> charges) {
    long now = clock.millis();
    Decision[] decisions = new Decision[charges.size()];
    for (int i = 0; i < decisions.length; i++) {
      Charge charge = charges.get(i);
      InMemoryKeySpace space = own(charge.space());
      decisions[i] = space.applyAt(charge.key(), Operation.LIMIT, charge.count(), 0, now);
      if (!decisions[i].allowed()) {
        for (int j = i - 1; j >= 0; j--) {
          Charge taken = charges.get(j);
          own(taken.space()).refundAt(taken.key(), taken.count(), now);
        }
        for (int j = 0; j < decisions.length; j++) {
          Charge other = charges.get(j);
          if (j != i) {
            decisions[j] = own(other.space()).applyAt(other.key(), Operation.CHECK, other.count(), 0, now);
          }
        }
        break;
      }
    }
    return Arrays.asList(decisions);
  }

  private InMemoryKeySpace own(KeySpace space) {
    if (space instanceof InMemoryKeySpace mine && mine.store() == this) {
      return mine;
    }
    throw new IllegalArgumentException("limit '" + space.name() + "' is bound to another store");
  }

  /** Called after a key was added. */
  void added() {
    if (size.incrementAndGet() > sweepAbove && sweeps) {
      sweep();
    }
  }

  void removed() {
    size.decrementAndGet();
  }

  /** A space nothing will read again (replaced twice): no longer swept, its keys no longer counted. */
  void retire(InMemoryKeySpace space, long keys) {
    if (spaces.remove(space)) {
      size.addAndGet(-keys);
    }
  }

  /** Drops fresh keys, then evicts the keys closest to fresh while above the bound. */
  private void sweep() {
    if (!sweeping.compareAndSet(false, true)) {
      return; // another thread is sweeping; the bound may be exceeded by a few keys meanwhile
    }
    try {
      long now = clock.millis();
      for (InMemoryKeySpace space : spaces) {
        space.dropFresh(now);
      }
      if (size.get() > maxKeys) {
        evict(now, size.get() - (maxKeys - maxKeys / 10));
      }
      sweepAbove = Math.min(maxKeys, Math.max(FIRST_SWEEP, 2 * size.get()));
    } finally {
      sweeping.set(false);
    }
  }

  /** Evicts about {@code count} keys, those with the shortest time until fresh first. */
  private void evict(long now, long count) {
    long[] untilFresh = new long[(int) Math.min(Integer.MAX_VALUE - 8, size.get() + 64)];
    int n = 0;
    for (InMemoryKeySpace space : spaces) {
      n = space.collectUntilFresh(now, untilFresh, n);
    }
    long[] sorted = Arrays.copyOf(untilFresh, n);
    Arrays.sort(sorted);
    long threshold = sorted[(int) Math.min(n - 1, Math.max(0, count - 1))];
    long[] left = {count};
    for (long upTo : new long[] {threshold - 1, threshold}) { // strictly closer to fresh first
      for (InMemoryKeySpace space : spaces) {
        space.evictUpTo(now, upTo, left);
      }
    }
  }
}

package dev.ratelimit.store;

import dev.ratelimit.Clock;
import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;
import dev.ratelimit.algorithm.LimitKind;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The embedded store, and the default: lock-free per key, bounded memory, no threads.
 *
 * <p>Token bucket, GCRA and fixed window keep one double per key, updated in place by one
 * compare-and-set: a decision on a known key allocates nothing but the {@link Decision}. The other
 * kinds replace an immutable state object per consuming request.
 *
 * <p>Memory stays bounded without a background thread, and no caller pays for a pass over the
 * map: each new key moves a hand (CLOCK-style, over every limit in turn) across a few keys,
 * dropping those whose state equals a fresh one (which changes no decision, as this store's
 * clock never goes back). Beyond {@code maxKeys}, the new key's caller also evicts one of the
 * {@value #EVICTION_SAMPLE} keys the hand visits next, the one fresh soonest. An evicted key's
 * state is folded first into a small conservative sketch of its limit (count-min style, a maximum
 * per cell), which a returning key starts from: forgetting a key never admits more than keeping
 * it would have; a key whose cells all collide with more used keys may be denied more. The
 * sketch forgets nothing on {@code reset}: a key reset while evicted may return with its usage.
 *
 * @since 1.0
 */
public final class InMemoryStore implements RateLimitStore {
  /** The default bound on keys over all limits: about 80 MB of state at most, keys aside. */
  public static final int DEFAULT_MAX_KEYS = 1_000_000;
  /** Keys the hand visits per new key below the bound: it passes each key more often than keys come. */
  static final int CLEAN_VISITS = 4;
  /** Keys the hand visits per new key beyond the bound, to pick the one to evict. */
  static final int EVICTION_SAMPLE = 8;

  private final Clock clock;
  private final int maxKeys;
  private final boolean sweeps;
  private final List<InMemoryKeySpace> spaces = new CopyOnWriteArrayList<>();
  private final AtomicLong size = new AtomicLong();
  private final ReentrantLock hand = new ReentrantLock();
  private final EvictionCandidate candidate = new EvictionCandidate();
  /** The limit under the hand, an index into {@code spaces}; and counts for tests. Under the lock. */
  private int handAt;
  private long visited;
  private int mostVisitedInOneCall;

  /** A store on the system clock with the default key bound. */
  public InMemoryStore() {
    this(Clock.system());
  }

  public InMemoryStore(Clock clock) {
    this(clock, DEFAULT_MAX_KEYS);
  }

  /**
   * @param maxKeys the most keys kept over all limits; beyond it keys close to fresh are folded
   *     into their limit's sketch
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
   * or {@code failure} differ). For another token bucket, GCRA or fixed window (no random phase),
   * a space on the same keys that takes each one over on first touch, its used units kept, capped
   * by the new capacity (every call on the previous space goes to the new one from then on).
   * Otherwise a space of fresh keys, the previous one's keys left to the hand.
   */
  @Override
  public KeySpace rebind(KeySpace previous, Limit limit) {
    InMemoryKeySpace mine = own(previous);
    if (LimitKind.sameState(mine.limit(), limit)) {
      return mine;
    }
    if (mine instanceof WordKeySpace word && LimitKind.carriesOver(mine.limit(), limit)) {
      WordKeySpace next = join(word, limit);
      word.replacedBy(next);
      return next;
    }
    return bind(previous.name(), limit);
  }

  /**
   * A space on the keys of {@code sibling} (another plan of its limit), by the carry-over rule:
   * the same space when the keys read the same, else a space of the same family that takes each
   * key over from whichever plan wrote it.
   *
   * @throws UnsupportedOperationException unless {@link LimitKind#carriesOver} the two
   */
  @Override
  public KeySpace share(KeySpace sibling, Limit limit) {
    InMemoryKeySpace mine = own(sibling);
    if (LimitKind.sameState(mine.limit(), limit)) {
      return mine;
    }
    if (mine instanceof WordKeySpace word && LimitKind.carriesOver(mine.limit(), limit)) {
      return join(word, limit);
    }
    throw new UnsupportedOperationException("the in-memory store shares a key's state only between token buckets, "
        + "GCRAs or fixed windows (no random phase) of one kind, not " + mine.limit() + " and " + limit);
  }

  /** A new member of {@code member}'s family; not swept on its own: the family's first space sweeps it. */
  private WordKeySpace join(WordKeySpace member, Limit limit) {
    return new WordKeySpace(this, member.name(), limit, LimitKind.of(limit).word(limit), member.family());
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

  /** Called after a key was added: moves the hand, and beyond the bound evicts one key. */
  void added() {
    long keys = size.incrementAndGet();
    if (!sweeps) {
      return;
    }
    if (keys > maxKeys) {
      hand.lock(); // every caller over the bound evicts its own key's worth
      try {
        candidate.clear();
        long now = clock.millis();
        move(EVICTION_SAMPLE, now, candidate);
        if (size.get() > maxKeys) {
          candidate.evict(now);
        }
        candidate.clear();
      } finally {
        hand.unlock();
      }
    } else if (hand.tryLock()) { // below the bound, cleaning may skip a turn
      try {
        move(CLEAN_VISITS, clock.millis(), null);
      } finally {
        hand.unlock();
      }
    }
  }

  void removed() {
    size.decrementAndGet();
  }

  /**
   * Moves the hand across up to {@code keys} keys, limit after limit; fresh keys go, the others
   * are offered to {@code best}. Under the lock. A limit with no keys costs a step, not a visit,
   * and a hand finding no keys at all stops after two turns over the limits.
   */
  private void move(int keys, long now, EvictionCandidate best) {
    int visits = 0;
    int idle = 0;
    while (visits < keys) {
      int limits = spaces.size();
      if (limits == 0 || idle > 2 * limits) {
        break;
      }
      if (spaces.get(handAt % limits).visitNext(now, best)) {
        visits++;
        idle = 0;
      } else {
        handAt = (handAt + 1) % limits;
        idle++;
      }
    }
    visited += visits;
    mostVisitedInOneCall = Math.max(mostVisitedInOneCall, visits);
  }

  /** Keys the hand has visited so far (for tests: the work new keys pay for). */
  long visitedKeys() {
    hand.lock();
    try {
      return visited;
    } finally {
      hand.unlock();
    }
  }

  /** The most keys the hand visited for one new key. */
  int mostVisitedForOneKey() {
    hand.lock();
    try {
      return mostVisitedInOneCall;
    } finally {
      hand.unlock();
    }
  }
}

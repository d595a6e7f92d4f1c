package dev.ratelimit.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.store.KeySpace;
import io.netty.util.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A token bucket or GCRA with {@code lease=N} on a {@link RedisStore} (docs/design.md §4.3.3):
 * a request this node can't admit from the units it holds takes its count plus a lease of N
 * units from Redis in one script call (op {@code t} of the kind's script, main-batch.lua); later requests on the key are
 * admitted from the lease here, one compare-and-set each, until it is spent or expires, when
 * what is left goes back to Redis in one refund. Below half a lease left, the next is taken
 * ahead. One take per key is in flight at a time; threads that run out wait for it, or go to
 * Redis directly when the last take found too few units.
 * A take Redis can't grant in full decides the request alone, exactly as without leases. A
 * key's first request in a lease's lifetime goes to Redis alone: only keys asked again take leases.
 *
 * <p>Checks, reservations, refunds, resets, takes and all-or-nothing calls go to Redis as without
 * leases ({@link RedisKeySpace}); a take into debt leaves the lease held here spendable, as its
 * units were counted taken when it was leased.
 */
final class LeasedKeySpace implements KeySpace {
  /** The longest a lease lives, and the shortest. */
  static final long MAX_LIFETIME_MILLIS = 1000;
  static final long MIN_LIFETIME_MILLIS = 1;

  private final RedisKeySpace keys;
  private final ScriptBatcher takes;
  private final Backlog backlog;
  private final Timer timer;
  private final double size;
  private final String sizeText;
  private final double capacity;
  private final long lifetimeMillis;
  /** Below this many units held, the next lease is taken ahead: half a lease. */
  private final double lowWater;
  private final Map<String, Lease> leases = new ConcurrentHashMap<>();

  LeasedKeySpace(RedisStore store, RedisKeySpace keys, Timer timer) {
    this.keys = keys;
    this.backlog = store.backlog();
    this.timer = timer;
    this.size = keys.limit().lease();
    this.sizeText = Args.number(size);
    this.capacity = keys.limit().capacity();
    this.lifetimeMillis = lifetimeMillis(keys.limit());
    this.lowWater = size / 2;
    this.takes = new ScriptBatcher(store, Script.forKind(keys.limit().kind()), keys.head()); // op t of its batch script
  }

  /**
   * How long a lease lives: a hundredth of the limit's refill time, between 1 ms and 1 s. Long
   * enough for a hot key to spend it, short enough that units idle on a node go back soon, and
   * so that a unit is admitted at most that long after Redis counted it taken (the rate times it
   * is at most 1% of the capacity).
   */
  static long lifetimeMillis(Limit limit) {
    long refill = limit.refillTime().orElseThrow().toMillis();
    return Math.max(MIN_LIFETIME_MILLIS, Math.min(MAX_LIFETIME_MILLIS, (refill + 99) / 100));
  }

  @Override
  public String name() {
    return keys.name();
  }

  @Override
  public Limit limit() {
    return keys.limit();
  }

  /** The key space that decides in Redis what leases don't. */
  RedisKeySpace keys() {
    return keys;
  }

  long lifetime() {
    return lifetimeMillis;
  }

  @Override
  public Decision apply(String key, Operation op, double count, long maxWaitMillis) {
    if (op != Operation.LIMIT) {
      return keys.apply(key, op, count, maxWaitMillis);
    }
    Lease held = leases.get(key);
    if (held != null) {
      double left = held.spend(count);
      if (left >= 0) {
        return spent(key, held, left);
      }
    }
    for (;;) {
      Lease lease = leases.computeIfAbsent(key, k -> new Lease());
      double left = lease.spend(count);
      if (left >= 0) {
        return spent(key, lease, left);
      }
      if (lease.retired()) {
        continue; // expired just now: its successor comes with the next look-up
      }
      if (lease.firstRequest()) {
        expireLater(key, lease);
        return keys.apply(key, op, count, 0);
      }
      CompletableFuture<Void> mine = new CompletableFuture<>();
      CompletableFuture<Void> inFlight = lease.taking.compareAndExchange(null, mine);
      if (inFlight == null) {
        try {
          Decision decision = took(key, lease, takes.decide(keys.redisKey(key), "-", take(count)));
          release(key, lease, mine, null);
          return decision;
        } catch (Throwable e) { // the threads waiting for this take must not wait forever
          release(key, lease, mine, e);
          throw e;
        }
      }
      if (lease.scarce) {
        return keys.apply(key, op, count, 0);
      }
      waitFor(inFlight); // then look again: the take may have brought enough
    }
  }

  /**
   * Waits for another thread's take. Redis failing it fails this request too, at once; any other
   * end (granted, denied, refused for its caller's own reasons) and this request looks again. An
   * interrupt fails only this request's wait, not the take others wait for.
   */
  private void waitFor(CompletableFuture<Void> take) {
    backlog.await(take.handle((taken, failure) -> {
      if (failure != null && ScriptRunner.unwrap(failure) instanceof StoreUnavailableException unavailable) {
        throw unavailable;
      }
      return null;
    }));
  }

  @Override
  public CompletableFuture<Decision> applyAsync(String key, Operation op, double count, long maxWaitMillis) {
    if (op != Operation.LIMIT) {
      return keys.applyAsync(key, op, count, maxWaitMillis);
    }
    for (;;) {
      Lease lease = leases.computeIfAbsent(key, k -> new Lease());
      double left = lease.spend(count);
      if (left >= 0) {
        return CompletableFuture.completedFuture(spent(key, lease, left));
      }
      if (lease.retired()) {
        continue;
      }
      if (lease.firstRequest()) {
        expireLater(key, lease);
        return keys.applyAsync(key, op, count, 0);
      }
      CompletableFuture<Void> mine = new CompletableFuture<>();
      CompletableFuture<Void> inFlight = lease.taking.compareAndExchange(null, mine);
      if (inFlight == null) {
        return takes.decideAsync(keys.redisKey(key), "-", take(count)).handle((reply, failure) -> {
          if (failure != null) {
            release(key, lease, mine, failure);
            throw ScriptRunner.unwrap(failure) instanceof RuntimeException e ? e
                : new IllegalStateException(ScriptRunner.unwrap(failure));
          }
          try {
            return took(key, lease, reply);
          } finally {
            release(key, lease, mine, null);
          }
        });
      }
      if (lease.scarce) {
        return keys.applyAsync(key, op, count, 0);
      }
      return inFlight.thenCompose(done -> applyAsync(key, op, count, maxWaitMillis));
    }
  }

  /**
   * A request admitted from the lease. Below half a lease left, the next lease is taken ahead,
   * without a request, so that the node's threads go on admitting during its round trip instead
   * of all waiting for it (a node then holds less than 1.5 leases).
   */
  private Decision spent(String key, Lease lease, double left) {
    if (left < lowWater && !lease.scarce && lease.taking.get() == null) {
      takeAhead(key, lease);
    }
    return lease.admitted(left, capacity);
  }

  /** A take of a lease alone ({@code t 0 size}), in flight while the key's threads spend what is left. */
  private void takeAhead(String key, Lease lease) {
    CompletableFuture<Void> mine = new CompletableFuture<>();
    if (!lease.taking.compareAndSet(null, mine)) {
      return;
    }
    takes.decideAsync(keys.redisKey(key), "-", take(0)).whenComplete((reply, failure) -> {
      Throwable error = failure;
      if (error == null) {
        try {
          took(key, lease, reply);
        } catch (RuntimeException e) {
          error = e;
        }
      }
      release(key, lease, mine, error);
    });
  }

  /** {@code t count size}: the request and a lease, as main-batch.lua reads them. */
  private String take(double count) {
    return "t " + Args.number(count) + " " + sizeText;
  }

  /**
   * The take is over: the next request may take again; those waiting for it look again (or fail
   * as it did). The key's lease, granted or not, retires a lifetime after the key's first request
   * (scheduled then; here for a take that came first), so that the map holds only keys asked for
   * within the last lifetime.
   */
  private void release(String key, Lease lease, CompletableFuture<Void> mine, Throwable failure) {
    expireLater(key, lease);
    lease.taking.set(null);
    if (failure == null) {
      mine.complete(null);
    } else {
      mine.completeExceptionally(failure);
    }
  }

  /** The request's decision from a take's reply; a granted lease goes to the key's units. */
  private Decision took(String key, Lease lease, Args.Answer reply) {
    boolean granted = reply.allowed() == 2;
    lease.scarce = !granted;
    Decision inRedis = reply.decision(keys.name(), capacity);
    if (!granted) {
      return inRedis;
    }
    if (!lease.add(size, inRedis.remaining(), inRedis.resetAfterMillis())) {
      keys.refundAsync(key, size); // it expired while the take was in flight
    }
    return new Decision(true, inRedis.remaining() + size, capacity, 0, inRedis.resetAfterMillis());
  }

  /** Retires the key's lease a lifetime after its first request (once, whoever asks first). */
  private void expireLater(String key, Lease lease) {
    if (lease.firstToExpire()) {
      timer.newTimeout(t -> giveBack(key, lease), lifetimeMillis, TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Retires the key's lease and gives what it holds back to Redis. If that fails (Redis down),
   * the units are lost until the key refills: fewer admissions, never more.
   */
  private CompletableFuture<?> giveBack(String key, Lease lease) {
    leases.remove(key, lease);
    double left = lease.retire();
    return left > 0 ? keys.refundAsync(key, left) : CompletableFuture.completedFuture(null);
  }

  /** Gives every lease back now (the store closing, the limit replaced); done when Redis has them. */
  CompletableFuture<Void> giveAllBack() {
    List<CompletableFuture<?>> refunds = new ArrayList<>();
    leases.forEach((key, lease) -> refunds.add(giveBack(key, lease)));
    return CompletableFuture.allOf(refunds.toArray(CompletableFuture[]::new));
  }

  @Override
  public void reset(String key) {
    Lease lease = leases.remove(key);
    if (lease != null) {
      lease.retire(); // a reset key is full again: its leased units are not given back on top
    }
    keys.reset(key);
  }

  @Override
  public CompletableFuture<Void> resetAsync(String key) {
    Lease lease = leases.remove(key);
    if (lease != null) {
      lease.retire();
    }
    return keys.resetAsync(key);
  }

  @Override
  public Decision refund(String key, double count) {
    return keys.refund(key, count);
  }

  @Override
  public CompletableFuture<Decision> refundAsync(String key, double count) {
    return keys.refundAsync(key, count);
  }

  @Override
  public String toString() {
    return keys + " (leases of " + sizeText + ")";
  }
}

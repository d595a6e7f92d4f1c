package dev.ratelimit.contract;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.store.InMemoryStore;
import dev.ratelimit.store.KeySpace;
import dev.ratelimit.store.RateLimitStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * The one fake of a remote store for tests: it wraps a store and, while switched off, throws as a
 * remote store does when it is down, before the wrapped store sees the call. It records every key
 * it is asked about, refused calls included, so tests can count calls and see what reached a store.
 * While {@link #holdAnswers holding}, its asynchronous decisions wait, as a remote store's answers
 * on their way do, until {@link #releaseAnswers}.
 */
public final class SwitchableStore implements RateLimitStore {
  private final RateLimitStore inner;
  private final Queue<String> keys = new ConcurrentLinkedQueue<>();
  /** Where asynchronous calls are answered, or {@code null}: on the caller's thread. */
  private final Executor replies;
  private volatile boolean down;
  private volatile boolean busy;
  private final List<Runnable> held = new ArrayList<>();
  private boolean holding;

  public SwitchableStore(RateLimitStore inner) {
    this(inner, null);
  }

  /**
   * A store that answers asynchronous calls (decisions, all-or-nothing calls) on {@code replies},
   * as a remote store's I/O thread does, rather than on the caller's thread.
   */
  public SwitchableStore(RateLimitStore inner, Executor replies) {
    this.inner = inner;
    this.replies = replies;
  }

  /** A store that is down from the start and stays down: every decision fails, as on a lost connection. */
  public static SwitchableStore unavailable() {
    SwitchableStore store = new SwitchableStore(new InMemoryStore());
    store.switchOff();
    return store;
  }

  public void switchOff() {
    down = true;
  }

  public void switchOn() {
    down = false;
  }

  /**
   * From now on refuses every asynchronous decision with a {@link RejectedExecutionException}, as
   * a remote store does past its bound on waiting requests (load, not a failure); synchronous
   * ones are still decided.
   */
  public void refuseAsync() {
    busy = true;
  }

  /** Keeps the asynchronous decisions back from now on, until {@link #releaseAnswers}. */
  public synchronized void holdAnswers() {
    holding = true;
  }

  /** Takes the held decisions now, in order, on this thread; later ones are taken at once again. */
  public void releaseAnswers() {
    List<Runnable> released;
    synchronized (this) {
      holding = false;
      released = List.copyOf(held);
      held.clear();
    }
    released.forEach(Runnable::run);
  }

  /** A decision taken now, or when the held answers are released. */
  private CompletionStage<Decision> answer(Supplier<Decision> decision) {
    CompletableFuture<Decision> answer = new CompletableFuture<>();
    Runnable take = () -> {
      try {
        answer.complete(decision.get());
      } catch (RuntimeException e) {
        answer.completeExceptionally(e);
      }
    };
    synchronized (this) {
      if (holding) {
        held.add(take);
        return answer;
      }
    }
    take.run();
    return answer;
  }

  /** Every key the store was asked about (decide, reset, refund), in order, refused calls included. */
  public List<String> keys() {
    return List.copyOf(keys);
  }

  /** How many calls reached the store, refused calls included. */
  public int calls() {
    return keys.size();
  }

  private void call(String key) {
    keys.add(key);
    if (down) {
      throw new StoreUnavailableException("switched off", null);
    }
  }

  /** Down, it refuses to record a runtime change, as a remote store that shares changes does. */
  @Override
  public void replacing(String name, String plan, Limit limit) {
    if (down) {
      throw new StoreUnavailableException("switched off", null);
    }
    inner.replacing(name, plan, limit);
  }

  /**
   * All or nothing: on {@code replies} when given; else charge by charge as each answers, held as
   * the single decisions are.
   */
  @Override
  public CompletionStage<List<Decision>> limitAllAsync(List<Charge> charges) {
    if (busy) {
      return CompletableFuture.failedFuture(new RejectedExecutionException("too many requests waiting"));
    }
    return replies == null ? RateLimitStore.limitInOrderAsync(charges)
        : CompletableFuture.supplyAsync(() -> limitAll(charges), replies);
  }

  @Override
  public KeySpace bind(String name, Limit limit) {
    return new Switchable(inner.bind(name, limit));
  }

  /** Plans sharing one state per key: the inner store's sharing, switched as the rest. */
  @Override
  public KeySpace share(KeySpace sibling, Limit limit) {
    return new Switchable(inner.share(sibling instanceof Switchable own ? own.space : sibling, limit));
  }

  /** A space of the inner store that refuses every call while the store is switched off. */
  private final class Switchable implements KeySpace {
    private final KeySpace space;

    Switchable(KeySpace space) {
      this.space = space;
    }

    @Override
    public String name() {
      return space.name();
    }

    @Override
    public Limit limit() {
      return space.limit();
    }

    @Override
    public Decision apply(String key, Operation op, double count, long maxWaitMillis) {
      call(key);
      return space.apply(key, op, count, maxWaitMillis);
    }

    @Override
    public void reset(String key) {
      call(key);
      space.reset(key);
    }

    @Override
    public Decision refund(String key, double count) {
      call(key);
      return space.refund(key, count);
    }

    /** On {@code replies} when given; else now, or when the held answers are released. */
    @Override
    public CompletionStage<Decision> applyAsync(String key, Operation op, double count, long maxWaitMillis) {
      if (busy) {
        keys.add(key);
        return CompletableFuture.failedFuture(new RejectedExecutionException("too many requests waiting"));
      }
      return replies == null ? answer(() -> apply(key, op, count, maxWaitMillis))
          : CompletableFuture.supplyAsync(() -> apply(key, op, count, maxWaitMillis), replies);
    }
  }
}

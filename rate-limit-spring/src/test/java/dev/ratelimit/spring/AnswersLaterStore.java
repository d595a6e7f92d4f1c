package dev.ratelimit.spring;

import dev.ratelimit.Clock;
import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Operation;
import dev.ratelimit.store.InMemoryStore;
import dev.ratelimit.store.KeySpace;
import dev.ratelimit.store.RateLimitStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A store as a remote one behaves, for the reactive path: every answer comes later, on the
 * store's own thread ({@value #THREAD}), and its blocking methods fail the test, so a caller that
 * takes them is caught. {@link #holdAnswers} keeps the answers back until
 * {@link #releaseAnswers}; {@link #failWith} makes every answer an error.
 */
final class AnswersLaterStore implements RateLimitStore {
  static final String THREAD = "store-answers";

  private final InMemoryStore decides;
  private final ExecutorService answers = Executors.newSingleThreadExecutor(task -> {
    Thread thread = new Thread(task, THREAD);
    thread.setDaemon(true);
    return thread;
  });
  private final List<Runnable> held = new ArrayList<>();
  private boolean holding;
  private volatile RuntimeException failure;

  AnswersLaterStore(Clock clock) {
    this.decides = new InMemoryStore(clock);
  }

  synchronized void holdAnswers() {
    holding = true;
  }

  /** Lets the held answers, and those after them, come on the store's thread. */
  void releaseAnswers() {
    List<Runnable> released;
    synchronized (this) {
      holding = false;
      released = List.copyOf(held);
      held.clear();
    }
    released.forEach(answers::execute);
  }

  /** Where answers are computed: on the store's thread, or held back. */
  private void answer(Runnable task) {
    synchronized (this) {
      if (holding) {
        held.add(task);
        return;
      }
    }
    answers.execute(task);
  }

  void failWith(RuntimeException failure) {
    this.failure = failure;
  }

  @Override
  public KeySpace bind(String name, Limit limit) {
    KeySpace space = decides.bind(name, limit);
    return new KeySpace() {
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
        throw new AssertionError("the blocking apply was called on " + Thread.currentThread().getName());
      }

      @Override
      public void reset(String key) {
        space.reset(key);
      }

      @Override
      public Decision refund(String key, double count) {
        throw new AssertionError("the blocking refund was called on " + Thread.currentThread().getName());
      }

      @Override
      public CompletionStage<Decision> applyAsync(String key, Operation op, double count, long maxWaitMillis) {
        return CompletableFuture.supplyAsync(() -> {
          RuntimeException failing = failure;
          if (failing != null) {
            throw failing;
          }
          return space.apply(key, op, count, maxWaitMillis);
        }, AnswersLaterStore.this::answer);
      }

      @Override
      public CompletionStage<Decision> refundAsync(String key, double count) {
        return CompletableFuture.supplyAsync(() -> space.refund(key, count), answers);
      }
    };
  }

  @Override
  public List<Decision> limitAll(List<Charge> charges) {
    throw new AssertionError("the blocking limitAll was called on " + Thread.currentThread().getName());
  }

  @Override
  public CompletionStage<List<Decision>> limitAllAsync(List<Charge> charges) {
    return RateLimitStore.limitInOrderAsync(charges);
  }

  /** Errors reach the caller as they are, not through a failure policy. */
  @Override
  public boolean canFail() {
    return false;
  }

  @Override
  public void close() {
    answers.shutdownNow();
  }
}

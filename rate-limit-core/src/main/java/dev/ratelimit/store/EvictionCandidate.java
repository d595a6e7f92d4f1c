package dev.ratelimit.store;

/**
 * The key the store's hand would evict from the entries it has just visited: the one fresh
 * soonest, so that what the sketch holds for it expires soonest too. Used under the hand's lock.
 */
final class EvictionCandidate {
  private InMemoryKeySpace space;
  private String key;
  private Object cell;
  private long untilFresh;

  void clear() {
    space = null;
    key = null;
    cell = null;
  }

  void offer(InMemoryKeySpace from, String visitedKey, Object visitedCell, long millisUntilFresh) {
    if (space == null || millisUntilFresh < untilFresh) {
      space = from;
      key = visitedKey;
      cell = visitedCell;
      untilFresh = millisUntilFresh;
    }
  }

  /** Evicts the key, if one was offered and its cell is still the one visited; true if it went. */
  boolean evict(long now) {
    return space != null && space.evict(key, cell, now);
  }
}

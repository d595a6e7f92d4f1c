package dev.ratelimit.algorithm;

import java.util.Arrays;

/**
 * Sliding log: every admitted request is an entry (time, units) that counts while
 * {@code time > t − period}. Entries with the same time are merged, so memory is bounded by the
 * distinct milliseconds in one period. Exact: a wait is when enough of the oldest entries leave.
 */
final class SlidingLogAlgorithm extends ObjectAlgorithm<SlidingLogAlgorithm.State> {

  /** Live entries, oldest first, and the latest time stored. */
  record State(long time, long[] times, double[] units) {}

  private final long periodMillis;

  SlidingLogAlgorithm(double rate, long periodMillis) {
    super(rate);
    this.periodMillis = periodMillis;
  }

  /** Index of the first entry still counting at {@code t}. */
  private int firstLive(State state, long t) {
    int i = 0;
    while (i < state.times().length && state.times()[i] <= t - periodMillis) {
      i++;
    }
    return i;
  }

  @Override
  public double level(State state, long now) {
    if (state == null) {
      return capacity;
    }
    long t = Math.max(now, state.time());
    double used = 0;
    for (int i = firstLive(state, t); i < state.units().length; i++) {
      used += state.units()[i];
    }
    return capacity - used;
  }

  @Override
  protected State consume(State state, long now, double count) {
    if (state == null) {
      return new State(now, new long[] {now}, new double[] {count});
    }
    long t = Math.max(now, state.time());
    int first = firstLive(state, t);
    int live = state.times().length - first;
    boolean merge = live > 0 && state.times()[state.times().length - 1] == t;
    int size = merge ? live : live + 1;
    long[] times = Arrays.copyOfRange(state.times(), first, first + size);
    double[] units = Arrays.copyOfRange(state.units(), first, first + size);
    times[size - 1] = t;
    units[size - 1] = (merge ? units[size - 1] : 0) + count;
    return new State(t, times, units);
  }

  @Override
  public State refund(State state, long now, double count) {
    if (state == null) {
      return null;
    }
    double[] units = state.units().clone();
    int size = units.length;
    double left = count;
    while (size > 0 && left > 0) {
      double back = Math.min(left, units[size - 1]);
      units[size - 1] -= back;
      left -= back;
      if (units[size - 1] <= 0) {
        size--;
      }
    }
    return size == 0 ? null
        : new State(state.time(), Arrays.copyOf(state.times(), size), Arrays.copyOf(units, size));
  }

  @Override
  protected double estimateWait(State state, long now, double units) {
    long t = Math.max(now, state.time());
    double level = level(state, now);
    for (int i = firstLive(state, t); i < state.times().length; i++) {
      level += state.units()[i];
      if (Rules.reaches(level, units, tolerance)) {
        return state.times()[i] + periodMillis - now;
      }
    }
    return state.times()[state.times().length - 1] + periodMillis - now;
  }
}

package dev.ratelimit.algorithm;

/**
 * Sliding window over {@code buckets} sub-windows of {@code w = period/buckets} ms. At time
 * {@code t}, in sub-window {@code c = floor(t/w)}, the units used are the counts of sub-windows
 * {@code c−buckets+1 … c} plus the count of {@code c−buckets} weighted by the part of it still
 * inside the window, {@code 1 − (t − c·w)/w}. Used units fall continuously, so the wait for a
 * request is found exactly, sub-window by sub-window.
 */
final class SlidingWindowAlgorithm extends ObjectAlgorithm<SlidingWindowAlgorithm.State> {

  /**
   * @param time the latest time stored (a clock going back is read as this time)
   * @param newest the index of the newest sub-window
   * @param counts counts of sub-windows {@code newest − j} for {@code j = 0 … buckets}
   */
  record State(long time, long newest, double[] counts) {
    double count(long window) {
      long j = newest - window;
      return j >= 0 && j < counts.length ? counts[(int) j] : 0;
    }
  }

  private final int buckets;
  private final long width;

  SlidingWindowAlgorithm(double rate, long periodMillis, int buckets) {
    super(rate);
    this.buckets = buckets;
    this.width = periodMillis / buckets;
  }

  private double used(State state, long t) {
    long c = Math.floorDiv(t, width);
    double full = 0;
    for (long window = c - buckets + 1; window <= c; window++) {
      full += state.count(window);
    }
    return full + state.count(c - buckets) * (1 - (double) (t - c * width) / width);
  }

  @Override
  public double level(State state, long now) {
    return state == null ? capacity : capacity - used(state, Math.max(now, state.time()));
  }

  @Override
  protected State consume(State state, long now, double count) {
    long t = state == null ? now : Math.max(now, state.time());
    long c = Math.floorDiv(t, width);
    double[] counts = new double[buckets + 1];
    if (state != null) {
      for (int j = 0; j <= buckets; j++) {
        counts[j] = state.count(c - j);
      }
    }
    counts[0] += count;
    return new State(t, c, counts);
  }

  @Override
  public State refund(State state, long now, double count) {
    if (state == null) {
      return null;
    }
    double[] counts = state.counts().clone();
    double left = count;
    boolean empty = true;
    for (int j = 0; j < counts.length; j++) {
      double back = Math.min(left, counts[j]);
      counts[j] -= back;
      left -= back;
      empty &= counts[j] <= 0;
    }
    return empty ? null : new State(state.time(), state.newest(), counts);
  }

  @Override
  protected double estimateWait(State state, long now, double units) {
    long t = Math.max(now, state.time());
    double allowedUse = capacity - units;
    // while sub-window s is current, only the count of s − buckets still decays
    for (long s = Math.floorDiv(t, width); s <= state.newest() + buckets; s++) {
      double full = 0;
      for (long window = s - buckets + 1; window <= s; window++) {
        full += state.count(window);
      }
      if (!Rules.reaches(capacity - full, units, tolerance)) {
        continue;
      }
      double decaying = state.count(s - buckets);
      double fraction = decaying > 0 ? 1 - (allowedUse - full) / decaying : 0;
      double at = Math.max(t, s * width + Math.max(0, fraction) * width);
      return at - now;
    }
    return (double) (state.newest() + buckets + 1) * width - now;
  }
}

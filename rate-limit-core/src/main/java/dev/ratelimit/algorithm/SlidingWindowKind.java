package dev.ratelimit.algorithm;

import dev.ratelimit.Limit;
import dev.ratelimit.SlidingWindow;

/** Sliding window: a rolling period counted in sub-windows, the oldest weighted as it slides out. */
final class SlidingWindowKind extends LimitKind {
  SlidingWindowKind() {
    super("sliding-window");
  }

  @Override
  public boolean inPlace() {
    return false;
  }

  @Override
  public ObjectAlgorithm<?> object(Limit limit) {
    SlidingWindow l = (SlidingWindow) limit;
    return new SlidingWindowAlgorithm(l.rate(), l.period().toMillis(), l.buckets());
  }

  @Override
  public Object[] storeParameters(Limit limit) {
    SlidingWindow l = (SlidingWindow) limit;
    return new Object[] {l.rate(), l.period().toMillis(), (long) l.buckets(), 0L, 0L};
  }
}

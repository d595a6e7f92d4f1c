package dev.ratelimit.algorithm;

import dev.ratelimit.Limit;
import dev.ratelimit.SlidingWindow;
import java.util.List;

/** Sliding window: a rolling period counted in sub-windows, the oldest weighted as it slides out. */
final class SlidingWindowKind extends LimitKind {
  SlidingWindowKind() {
    super("sliding-window", List.of("rate", "period", "buckets", "failure", "mode"), List.of("rate", "period"));
  }

  @Override
  Limit build(SpecParams p) {
    return new SlidingWindow(p.rate(), p.period(), p.buckets(), p.failure(), p.mode());
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

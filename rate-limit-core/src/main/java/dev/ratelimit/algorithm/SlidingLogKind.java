package dev.ratelimit.algorithm;

import dev.ratelimit.Limit;
import dev.ratelimit.SlidingLog;

/** Sliding log: every admitted request logged for one period; exact. */
final class SlidingLogKind extends LimitKind {
  SlidingLogKind() {
    super("sliding-log");
  }

  @Override
  public boolean inPlace() {
    return false;
  }

  @Override
  public ObjectAlgorithm<?> object(Limit limit) {
    SlidingLog l = (SlidingLog) limit;
    return new SlidingLogAlgorithm(l.rate(), l.period().toMillis());
  }

  @Override
  public Object[] storeParameters(Limit limit) {
    SlidingLog l = (SlidingLog) limit;
    return new Object[] {l.rate(), l.period().toMillis(), 0L, 0L, 0L};
  }
}

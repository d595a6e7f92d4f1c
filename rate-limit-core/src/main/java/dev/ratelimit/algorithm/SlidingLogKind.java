package dev.ratelimit.algorithm;

import dev.ratelimit.Limit;
import dev.ratelimit.SlidingLog;
import java.util.List;

/** Sliding log: every admitted request logged for one period; exact. */
final class SlidingLogKind extends LimitKind {
  SlidingLogKind() {
    super("sliding-log", List.of("rate", "period", "failure", "mode"), List.of("rate", "period"));
  }

  @Override
  Limit build(SpecParams p) {
    return new SlidingLog(p.rate(), p.period(), p.failure(), p.mode());
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

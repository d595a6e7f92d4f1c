package dev.ratelimit.algorithm;

import dev.ratelimit.Gcra;
import dev.ratelimit.Limit;
import java.util.List;

/** GCRA: the token bucket's admissions, kept as a theoretical arrival time. */
final class GcraKind extends LimitKind {
  GcraKind() {
    super("gcra", List.of("rate", "period", "capacity", "maxReserved", "shards", "failure", "mode", "lease"),
        List.of("rate", "period"));
  }

  @Override
  Limit build(SpecParams p) {
    return new Gcra(p.rate(), p.period(), p.capacity(), p.maxReserved(), p.shards(), p.failure(), p.mode(),
        TokenBucketKind.lease(p));
  }

  @Override
  public boolean inPlace() {
    return true;
  }

  @Override
  public WordAlgorithm word(Limit limit) {
    Gcra l = (Gcra) limit;
    return new GcraAlgorithm(l.rate(), l.period().toMillis(), l.capacity(), l.maxReserved());
  }

  @Override
  public Limit perShard(Limit limit, int n) {
    Gcra l = (Gcra) limit;
    return new Gcra(l.rate() / n, l.period(), l.capacity() / n, l.maxReserved() / n, 1, l.failure(), l.mode());
  }

  @Override
  public Object[] storeParameters(Limit limit) {
    Gcra l = (Gcra) limit;
    return new Object[] {l.rate(), l.period().toMillis(), l.capacity(), l.maxReserved(), 0L};
  }
}

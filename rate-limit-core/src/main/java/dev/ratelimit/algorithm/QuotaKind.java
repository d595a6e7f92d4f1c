package dev.ratelimit.algorithm;

import dev.ratelimit.Limit;
import dev.ratelimit.Quota;
import java.util.List;

/** Quota: units per calendar day, week or month at a fixed UTC offset. */
final class QuotaKind extends LimitKind {
  QuotaKind() {
    super("quota", List.of("rate", "cadence", "offset", "failure", "mode"), List.of("rate", "cadence"));
  }

  @Override
  Limit build(SpecParams p) {
    return new Quota(p.rate(), p.cadence(), p.offset(), p.failure(), p.mode());
  }

  @Override
  public boolean inPlace() {
    return false;
  }

  @Override
  public ObjectAlgorithm<?> object(Limit limit) {
    Quota l = (Quota) limit;
    return new QuotaAlgorithm(l.rate(), l.cadence(), offsetMillis(l));
  }

  /** Rate, cadence (a word) and the UTC offset in milliseconds. */
  @Override
  public Object[] storeParameters(Limit limit) {
    Quota l = (Quota) limit;
    return new Object[] {l.rate(), l.cadence().spec(), offsetMillis(l), 0L, 0L};
  }

  private static long offsetMillis(Quota quota) {
    return quota.offset().getTotalSeconds() * 1000L;
  }
}

package dev.ratelimit.algorithm;

import dev.ratelimit.Limit;
import dev.ratelimit.Quota;

/** Quota: units per calendar day, week or month at a fixed UTC offset. */
final class QuotaKind extends LimitKind {
  QuotaKind() {
    super("quota");
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

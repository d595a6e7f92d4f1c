package dev.ratelimit.algorithm;

import dev.ratelimit.InvalidLimitSpecException;
import dev.ratelimit.Limit;
import dev.ratelimit.TokenBucket;
import java.util.List;

/** Token bucket: continuous refill, bursts up to the capacity. */
final class TokenBucketKind extends LimitKind {
  TokenBucketKind() {
    super("token-bucket", List.of("rate", "period", "capacity", "maxReserved", "shards", "failure", "mode", "lease"),
        List.of("rate", "period"));
  }

  @Override
  Limit build(SpecParams p) {
    return new TokenBucket(p.rate(), p.period(), p.capacity(), p.maxReserved(), p.shards(), p.failure(), p.mode(),
        lease(p));
  }

  /**
   * The {@code lease} of a token bucket or GCRA spec: units greater than 0 (the record checks the
   * range); absent: 0, none. Parsed here rather than in SpecParams, as only these two kinds take it.
   */
  static double lease(SpecParams p) {
    String value = p.values().get("lease");
    if (value == null) {
      return 0;
    }
    if (!value.matches("\\d+(?:\\.\\d+)?") || !(Double.parseDouble(value) > 0)) {
      throw new InvalidLimitSpecException("bad value '" + value + "' for lease in " + SpecParams.quote(p.spec())
          + ": expected a number of units greater than 0, at most the capacity, such as 50 (leave it out for no lease)",
          p.spec(), "lease=" + value);
    }
    return Double.parseDouble(value);
  }

  @Override
  public boolean inPlace() {
    return true;
  }

  @Override
  public WordAlgorithm word(Limit limit) {
    TokenBucket l = (TokenBucket) limit;
    return new TokenBucketAlgorithm(l.rate(), l.period().toMillis(), l.capacity(), l.maxReserved());
  }

  @Override
  public Limit perShard(Limit limit, int n) {
    TokenBucket l = (TokenBucket) limit;
    return new TokenBucket(l.rate() / n, l.period(), l.capacity() / n, l.maxReserved() / n, 1, l.failure(), l.mode());
  }

  @Override
  public Object[] storeParameters(Limit limit) {
    TokenBucket l = (TokenBucket) limit;
    return new Object[] {l.rate(), l.period().toMillis(), l.capacity(), l.maxReserved(), 0L};
  }
}

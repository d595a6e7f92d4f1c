package dev.ratelimit.algorithm;

import dev.ratelimit.Limit;
import dev.ratelimit.TokenBucket;
import java.util.List;

/** Token bucket: continuous refill, bursts up to the capacity. */
final class TokenBucketKind extends LimitKind {
  TokenBucketKind() {
    super("token-bucket", List.of("rate", "period", "capacity", "maxReserved", "shards", "failure", "mode"),
        List.of("rate", "period"));
  }

  @Override
  Limit build(SpecParams p) {
    return new TokenBucket(p.rate(), p.period(), p.capacity(), p.maxReserved(), p.shards(), p.failure(), p.mode());
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

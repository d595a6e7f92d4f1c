package dev.ratelimit.algorithm;

import dev.ratelimit.Limit;
import dev.ratelimit.TokenBucket;

/** Token bucket: continuous refill, bursts up to the capacity. */
final class TokenBucketKind extends LimitKind {
  TokenBucketKind() {
    super("token-bucket");
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

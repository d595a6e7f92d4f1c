package dev.ratelimit.spring.boot;

import dev.ratelimit.RateLimiter;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/** {@code /actuator/ratelimits}: every limit with its spec, the store, and its decisions so far. */
@Endpoint(id = "ratelimits")
public class RateLimitsEndpoint {
  private final RateLimiter limiter;
  private final CountingStore counts;

  public RateLimitsEndpoint(RateLimiter limiter, CountingStore counts) {
    this.limiter = limiter;
    this.counts = counts;
  }

  /** One limit in the endpoint's answer. */
  public record LimitInfo(String spec, long allowed, long denied) {}

  /** The endpoint's answer. */
  public record Report(String store, boolean storeAvailable, Map<String, LimitInfo> limits) {}

  @ReadOperation
  public Report limits() {
    Map<String, LimitInfo> limits = new LinkedHashMap<>();
    limiter.limits().forEach((name, limit) -> {
      CountingStore.Counts decided = counts.counts(name);
      limits.put(name, new LimitInfo(limit.toString(), decided.allowed(), decided.denied()));
    });
    return new Report(counts.inner().getClass().getSimpleName(), limiter.storeAvailable(), limits);
  }
}

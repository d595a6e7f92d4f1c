package dev.ratelimit.spring.boot;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.limiter.NamedLimiter.TopKey;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * {@code /actuator/ratelimits}: every limit with its spec, the store, and its decisions so far (counted by the limiter's listener, {@link DecisionCounts});
 * {@code /actuator/ratelimits/{limit}/{key}}, or {@code /actuator/ratelimits/{limit}?key=...} for
 * any key (one that does not fit a path segment: an IPv6 client's {@code 2001:db8::/64}): one
 * key's state (GET, consuming nothing) and its reset (DELETE: the "unlock this user" of an
 * operator); {@code GET /actuator/ratelimits/{limit}/top}: the limit's heaviest keys (a key named
 * {@code top} is read by the {@code ?key=} form); {@code POST /actuator/ratelimits/{limit}}: a limit
 * changed at runtime.
 *
 * <p>Reads only, until the operator grants writes with
 * {@code management.endpoint.ratelimits.access=unrestricted} (Boot's convention for an
 * endpoint's writes): a reset or a change of limit lets whoever may send it raise their own limit,
 * so it is off until asked for, and then for the operators Spring Security lets through
 * (docs/design.md §7.4).
 *
 * @since 1.0
 */
@Endpoint(id = "ratelimits", defaultAccess = Access.READ_ONLY)
public class RateLimitsEndpoint {
  private final RateLimiter limiter;
  private final DecisionCounts counts;

  public RateLimitsEndpoint(RateLimiter limiter, DecisionCounts counts) {
    this.limiter = limiter;
    this.counts = counts;
  }

  /**
   * One limit in the endpoint's answer.
   *
   * @param allowed admitted so far, by the store or by a failure policy
   * @param denied denied so far, by the store or by a failure policy
   * @param fallback of these, how many a failure policy decided while the store was down
   */
  public record LimitInfo(String spec, long allowed, long denied, long fallback, long shadowDenied) {}

  /** The endpoint's answer. */
  public record Report(String store, boolean storeAvailable, Map<String, LimitInfo> limits) {}

  /**
   * One key's state, as a request for one unit would find it.
   *
   * @param remaining units left now
   * @param limit the capacity
   * @param retryAfterMs how long until one unit would be admitted; 0 when it would be now
   * @param resetAfterMs how long until the key is full again
   */
  public record KeyState(double remaining, double limit, long retryAfterMs, long resetAfterMs) {}

  @ReadOperation
  public Report limits() {
    Map<String, LimitInfo> limits = new LinkedHashMap<>();
    limiter.limits().forEach((name, limit) -> {
      DecisionCounts.Counts decided = counts.counts(name);
      limits.put(name, decided == null ? new LimitInfo(limit.toString(), 0, 0, 0, 0) : new LimitInfo(limit.toString(),
          decided.allowed(), decided.denied(), decided.fallbackAllowed() + decided.fallbackDenied(),
          decided.shadowDenied()));
    });
    return new Report(RateLimitHealth.storeName(limiter), limiter.storeAvailable(), limits);
  }

  /** The key the GET of {@code {limit}/{key}} answers with the limit's heaviest keys instead. */
  static final String TOP = "top";

  /** How many keys {@code {limit}/top} lists. */
  static final int TOP_LISTED = 10;

  /**
   * A limit's heaviest keys over the current window and the one before, heaviest first
   * (docs/design.md §10.2).
   */
  public record TopOffenders(String limit, List<TopKey> keys) {}

  /**
   * {@code GET /{limit}/{key}}: {@link #state}, for a key that fits a path segment; for {@code top},
   * the limit's {@link TopOffenders} (a key named {@code top} is read by {@link #keyByQuery}).
   */
  @ReadOperation
  public Object key(@Selector String limit, @Selector String key) {
    if (TOP.equals(key)) {
      return topOffenders(limit);
    }
    return state(limit, key);
  }

  /** {@code GET /{limit}?key=...}: {@link #state}, for any key, URL-encoded; {@code ?key=} is the global key. */
  @ReadOperation
  public KeyState keyByQuery(@Selector String limit, String key) {
    return state(limit, key);
  }

  /**
   * The key's state, consuming nothing and not counted as a decision; 404 for an unknown limit.
   * The key as the limiter bounds it (docs/design.md §6.2): a long one reaches the bucket its
   * requests were charged to.
   */
  private KeyState state(String limit, String key) {
    Limit configured = limiter.limits().get(limit);
    if (configured == null) {
      return null; // 404
    }
    Decision state = counts.unobserved(() -> limiter.named(limit).check(key, Math.min(1, configured.largestCount())));
    return new KeyState(state.remaining(), state.limit(), state.retryAfterMillis(), state.resetAfterMillis());
  }

  /**
   * The limit's {@value #TOP_LISTED} heaviest keys; 404 for an unknown limit, or when the limiter
   * does not track them.
   */
  private Object topOffenders(String limit) {
    if (!limiter.limits().containsKey(limit)) {
      return null; // 404
    }
    try {
      return new TopOffenders(limit, limiter.named(limit).topKeys(TOP_LISTED));
    } catch (IllegalStateException e) {
      return new WebEndpointResponse<>(Map.of("error", "top keys are not tracked: ratelimit.top-keys.enabled=false, "
          + "or a RateLimiter bean of the application's own without trackTopKeys"), WebEndpointResponse.STATUS_NOT_FOUND);
    }
  }

  /**
   * {@code POST /actuator/ratelimits/{limit}} with {@code {"spec": "...", "plan": "pro"}} (plan
   * optional): puts the spec in force at once, keys carried over by docs/design.md §2.7. 200 with the
   * spec now in force and the one replaced; 400 with the parser's message for a bad spec, or for
   * a plan the limit lacks, nothing changed; 404 for an unknown limit.
   */
  @WriteOperation
  public WebEndpointResponse<Map<String, String>> replace(@Selector String limit, String spec, @Nullable String plan) {
    if (!limiter.limits().containsKey(limit)) {
      return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
    }
    try {
      Limit previous = limiter.named(limit).onPlan(plan).replace(Limit.parse(spec));
      return new WebEndpointResponse<>(Map.of("spec", Limit.parse(spec).toString(), "previous", previous.toString()));
    } catch (IllegalArgumentException | UnsupportedOperationException e) {
      return new WebEndpointResponse<>(Map.of("error", String.valueOf(e.getMessage())),
          WebEndpointResponse.STATUS_BAD_REQUEST);
    } catch (StoreUnavailableException e) {
      // the store would not record the change for the other nodes (Redis down): nothing changed anywhere
      return new WebEndpointResponse<>(Map.of("error", String.valueOf(e.getMessage())),
          WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
    }
  }

  /** {@code DELETE /{limit}/{key}}: {@link #forget}, for a key that fits a path segment. */
  @DeleteOperation
  public WebEndpointResponse<Void> reset(@Selector String limit, @Selector String key) {
    return forget(limit, key);
  }

  /** {@code DELETE /{limit}?key=...}: {@link #forget}, for any key, URL-encoded. */
  @DeleteOperation
  public WebEndpointResponse<Void> resetByQuery(@Selector String limit, String key) {
    return forget(limit, key);
  }

  /** Forgets the key, so that it is full again: 204, or 404 for an unknown limit. */
  private WebEndpointResponse<Void> forget(String limit, String key) {
    if (!limiter.limits().containsKey(limit)) {
      return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
    }
    limiter.named(limit).reset(key);
    return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NO_CONTENT);
  }
}

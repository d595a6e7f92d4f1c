package dev.ratelimit.spring.boot;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.http.builder.MissingKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Rate limiting (ratelimit.*): the limits, where their state lives, and the servlet filter's rules
 * (docs/design.md §7, a public contract). Descriptions here are plain text: the configuration processor
 * copies them into the metadata that IDEs show.
 *
 * <pre>
 * ratelimit.limits.api=token-bucket rate=100 period=1m
 * ratelimit.filter.rules[0].path=/api/**
 * ratelimit.filter.rules[0].limit=api
 * </pre>
 *
 * @since 1.0
 */
@ConfigurationProperties("ratelimit")
public class RateLimitProperties {

  /** Where limit state lives. */
  public enum Store {
    /** The embedded in-memory store (the default). */
    MEMORY,
    /** Redis, shared by every node (rate-limit-redis). */
    REDIS,
    /** A bucket4j ProxyManager bean of the application (rate-limit-bucket4j). */
    BUCKET4J
  }

  /** Where the in-memory store reads the time (docs/design.md §2.3). */
  public enum ClockKind {
    /** The system clock, read on every decision (the default). */
    SYSTEM,
    /**
     * The system clock as a daemon thread reads it every half millisecond: cheaper to read, up to
     * a millisecond late, never early.
     */
    COARSE
  }

  /** Whether rate limiting is on: false turns off the limiter, the filter, the annotations, health and the endpoint. */
  private boolean enabled = true;

  /** Named limits: kebab-case name to spec, e.g. api: token-bucket rate=100 period=1m. */
  private Map<String, String> limits = new LinkedHashMap<>();

  /**
   * Specs per plan: plan name to limit name to spec, e.g. pro.api: token-bucket rate=10000
   * period=1h. Each limit needs a default spec in limits; calls choose the plan
   * (@RateLimited(plan = ...)).
   */
  private Map<String, Map<String, String>> plans = new LinkedHashMap<>();

  /** Where limit state lives: memory (the default), redis or bucket4j. */
  private Store store = Store.MEMORY;

  /**
   * Where the in-memory store reads the time: system (the default) or coarse (read by a daemon
   * thread every half millisecond: cheaper, up to a millisecond late, never early).
   */
  private ClockKind clock = ClockKind.SYSTEM;

  /** Rate limit header families on HTTP responses, comma-separated: legacy, ietf, none, and epoch (X-RateLimit-Reset as a Unix time). */
  private String headers = "legacy,ietf";

  /** Proxies whose forwarded header is believed: addresses and CIDR blocks. */
  private String trustedProxies = "";

  /** The header the trusted proxies write, the only one read: x-forwarded-for, forwarded or x-real-ip. */
  private String forwardedHeader = "x-forwarded-for";

  /** Allows trusted-proxies entries that cover every address (0.0.0.0/0, ::/0): only if every peer is a proxy. */
  private boolean trustAllProxies;

  /** What limits without failure= do while a remote store is unavailable: open, closed or local. */
  private FailurePolicy storeFailure = FailurePolicy.LOCAL;

  private final Filter filter = new Filter();

  private final Redis redis = new Redis();

  private final Health health = new Health();

  private final TopKeys topKeys = new TopKeys();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public Health getHealth() {
    return health;
  }

  public Map<String, String> getLimits() {
    return limits;
  }

  public void setLimits(Map<String, String> limits) {
    this.limits = limits;
  }

  public Map<String, Map<String, String>> getPlans() {
    return plans;
  }

  public void setPlans(Map<String, Map<String, String>> plans) {
    this.plans = plans;
  }

  public Store getStore() {
    return store;
  }

  public ClockKind getClock() {
    return clock;
  }

  public void setClock(ClockKind clock) {
    this.clock = clock;
  }

  public void setStore(Store store) {
    this.store = store;
  }

  public String getHeaders() {
    return headers;
  }

  public void setHeaders(String headers) {
    this.headers = headers;
  }

  public String getTrustedProxies() {
    return trustedProxies;
  }

  public void setTrustedProxies(String trustedProxies) {
    this.trustedProxies = trustedProxies;
  }

  public String getForwardedHeader() {
    return forwardedHeader;
  }

  public void setForwardedHeader(String forwardedHeader) {
    this.forwardedHeader = forwardedHeader;
  }

  public boolean isTrustAllProxies() {
    return trustAllProxies;
  }

  public void setTrustAllProxies(boolean trustAllProxies) {
    this.trustAllProxies = trustAllProxies;
  }

  public FailurePolicy getStoreFailure() {
    return storeFailure;
  }

  public void setStoreFailure(FailurePolicy storeFailure) {
    this.storeFailure = storeFailure;
  }

  public Filter getFilter() {
    return filter;
  }

  public Redis getRedis() {
    return redis;
  }

  public TopKeys getTopKeys() {
    return topKeys;
  }

  /** The filter (the servlet one, or the WebFlux one in a reactive application): registered when there are rules. */
  public static class Filter {
    /** Requests limited by path: Spring path patterns, each with a limit, a key and a cost. */
    private List<Rule> rules = new ArrayList<>();

    /**
     * The filter's order among the servlet filters. Default: just after Spring Security's filter chain when Spring
     * Security is present (so that the principal key sees the authenticated user), else before every other filter.
     */
    private Integer order;

    /** What a rule does with a request that has no key: global (share one bucket), skip (the rule does not apply) or deny (400). */
    private MissingKey missingKey = MissingKey.GLOBAL;

    public Integer getOrder() {
      return order;
    }

    public void setOrder(Integer order) {
      this.order = order;
    }

    public MissingKey getMissingKey() {
      return missingKey;
    }

    public void setMissingKey(MissingKey missingKey) {
      this.missingKey = missingKey;
    }

    public List<Rule> getRules() {
      return rules;
    }

    public void setRules(List<Rule> rules) {
      this.rules = rules;
    }
  }

  /**
   * What a rule spends: units of a limit from a key's bucket, and which responses keep the charge (a gateway
   * route's RateLimit args too).
   */
  public static class Spend {
    /** The name of a configured limit. */
    private String limit;

    /**
     * ip, header:NAME, principal, param:NAME, or a SpEL expression #{...} over the request's variables and beans
     * (docs/design.md §7.3). A header or a parameter is what the client sends: it picks its own bucket unless the
     * application refuses values it does not know.
     */
    private String key = "ip";

    /** Units each matching request costs. */
    private double cost = 1;

    /**
     * The response statuses that keep the charge, e.g. 401,403, 4xx or 5xx: a request is charged up front and
     * refunded once its status is known and not one of these. Default: every response counts.
     */
    private String chargeOn;

    /**
     * With charge-on: whether a request whose client went away before the response is refunded even though the
     * handler (or the backend) already ran. Default false: it is charged, as its work ran; true lets a client that
     * hangs up get that work for free.
     */
    private boolean refundCancelled;

    /**
     * A response header in which the application states what the request really cost, e.g. X-Cost (a plain
     * decimal number, 0 or more): the request is charged cost up front, as an estimate, and settled with this
     * value once the response is known, the difference given back or taken into debt. A missing or malformed
     * value keeps the estimate. The client does not receive the header unless cost-header-pass is true.
     */
    private String costHeader;

    /** With cost-header: whether the client receives the cost header too. Default false: it is taken out. */
    private boolean costHeaderPass;

    public String getLimit() {
      return limit;
    }

    public void setLimit(String limit) {
      this.limit = limit;
    }

    public String getKey() {
      return key;
    }

    public void setKey(String key) {
      this.key = key;
    }

    public double getCost() {
      return cost;
    }

    public void setCost(double cost) {
      this.cost = cost;
    }

    public String getChargeOn() {
      return chargeOn;
    }

    public void setChargeOn(String chargeOn) {
      this.chargeOn = chargeOn;
    }

    public boolean isRefundCancelled() {
      return refundCancelled;
    }

    public void setRefundCancelled(boolean refundCancelled) {
      this.refundCancelled = refundCancelled;
    }

    public String getCostHeader() {
      return costHeader;
    }

    public void setCostHeader(String costHeader) {
      this.costHeader = costHeader;
    }

    public boolean isCostHeaderPass() {
      return costHeaderPass;
    }

    public void setCostHeaderPass(boolean costHeaderPass) {
      this.costHeaderPass = costHeaderPass;
    }
  }

  /** One filter rule. */
  public static class Rule extends Spend {
    /** A Spring path pattern, e.g. /api/**. */
    private String path;

    /** The HTTP methods the rule applies to, e.g. [POST, PUT]; default: every method. */
    private List<String> methods;

    /**
     * The plan each request is charged under: a SpEL expression #{...} naming one of ratelimit.plans, from who the
     * caller is: #principal (the user's name, e.g. #{@plans.of(#principal)} with a bean of yours) or #authorities;
     * never from #request's headers or parameters, which the client writes. Null, a plan the limit lacks, or a
     * failing expression: the default plan.
     */
    private String plan;

    /**
     * Whether the rule applies to a request: a SpEL expression #{...} over facts a client cannot forge, such as
     * #authorities (#{!#authorities.contains('ROLE_INTERNAL')}) or #clientAddress
     * (#{!#clientAddress.in('10.0.0.0/8')}); never a header. False: the request is neither charged nor shown the
     * rule's headers. A failing expression: the rule applies.
     */
    private String condition;

    public String getPath() {
      return path;
    }

    public void setPath(String path) {
      this.path = path;
    }

    public List<String> getMethods() {
      return methods;
    }

    public void setMethods(List<String> methods) {
      this.methods = methods;
    }

    public String getPlan() {
      return plan;
    }

    public void setPlan(String plan) {
      this.plan = plan;
    }

    public String getCondition() {
      return condition;
    }

    public void setCondition(String condition) {
      this.condition = condition;
    }
  }

  /** The rateLimit health contributor. */
  public static class Health {
    /**
     * Whether the rateLimit health is DOWN while the store does not answer. Default false: UP, since every limit
     * keeps deciding by its failure policy.
     */
    private boolean downWhenStoreUnavailable;

    public boolean isDownWhenStoreUnavailable() {
      return downWhenStoreUnavailable;
    }

    public void setDownWhenStoreUnavailable(boolean downWhenStoreUnavailable) {
      this.downWhenStoreUnavailable = downWhenStoreUnavailable;
    }
  }

  /**
   * Each limit's heaviest keys, for /actuator/ratelimits/{limit}/top: a heavy-hitters sketch of
   * bounded size per limit (docs/design.md §10.2).
   */
  public static class TopKeys {
    /** Whether each limit's heaviest keys are tracked, for /actuator/ratelimits/{limit}/top. */
    private boolean enabled = true;

    /**
     * Keys per sketch (1 to 65536): any key with more than 1/size of a limit's units over the two
     * windows read is listed, and each count is within that of the truth. Memory per limit: up to
     * 2 x 8 x size keys.
     */
    private int size = 128;

    /** How long each window lasts: the endpoint reads the current window and the one before. */
    private Duration window = Duration.ofMinutes(1);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public int getSize() {
      return size;
    }

    public void setSize(int size) {
      this.size = size;
    }

    public Duration getWindow() {
      return window;
    }

    public void setWindow(Duration window) {
      this.window = window;
    }
  }

  /** The Redis store. */
  public static class Redis {
    /** Redis URI; default: the application's LettuceConnectionFactory, if there is one. */
    private String url;

    /** Command timeout: past it the store counts as unavailable and store-failure applies. */
    private Duration timeout = Duration.ofMillis(250);

    /**
     * How often this node reads the limits changed at runtime on other nodes (the actuator's POST
     * /actuator/ratelimits/{limit}): a change is in force everywhere within this interval plus
     * twice the timeout.
     */
    private Duration syncInterval = Duration.ofSeconds(1);

    /**
     * The most decisions that may wait for Redis at once without a thread of their own (WebFlux,
     * the gateway, asynchronous @RateLimited methods); one past it is answered 503 with
     * Retry-After: 1, as load, not as a store failure. Blocking callers are not counted.
     */
    private int maxPending = 10_000;

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public Duration getTimeout() {
      return timeout;
    }

    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }

    public Duration getSyncInterval() {
      return syncInterval;
    }

    public void setSyncInterval(Duration syncInterval) {
      this.syncInterval = syncInterval;
    }

    public int getMaxPending() {
      return maxPending;
    }

    public void setMaxPending(int maxPending) {
      if (maxPending < 1) {
        throw new IllegalArgumentException("ratelimit.redis.max-pending must be at least 1 but was " + maxPending);
      }
      this.maxPending = maxPending;
    }
  }
}

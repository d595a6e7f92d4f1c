package dev.ratelimit.spring.boot;

import dev.ratelimit.FailurePolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code ratelimit.*}: the limits, where their state lives, and the servlet filter's rules
 * (DESIGN.md §7, a public contract).
 *
 * <pre>
 * ratelimit.limits.api=token-bucket rate=100 period=1m
 * ratelimit.filter.rules[0].path=/api/**
 * ratelimit.filter.rules[0].limit=api
 * </pre>
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

  /** Named limits: kebab-case name to spec, e.g. {@code api: token-bucket rate=100 period=1m}. */
  private Map<String, String> limits = new LinkedHashMap<>();

  /** Where limit state lives: memory (the default), redis or bucket4j. */
  private Store store = Store.MEMORY;

  /** Rate limit header families on HTTP responses: any of legacy, ietf, none. */
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

  public Map<String, String> getLimits() {
    return limits;
  }

  public void setLimits(Map<String, String> limits) {
    this.limits = limits;
  }

  public Store getStore() {
    return store;
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

  /** The servlet filter: registered when there are rules. */
  public static class Filter {
    /** Requests limited by path: Spring path patterns, each with a limit, a key and a cost. */
    private List<Rule> rules = new ArrayList<>();

    public List<Rule> getRules() {
      return rules;
    }

    public void setRules(List<Rule> rules) {
      this.rules = rules;
    }
  }

  /** One filter rule. */
  public static class Rule {
    /** A Spring path pattern, e.g. {@code /api/**}. */
    private String path;

    /** The name of a configured limit. */
    private String limit;

    /** ip, header:NAME, principal, param:NAME, or a SpEL expression #{...} over #request. */
    private String key = "ip";

    /** Units each matching request costs. */
    private double cost = 1;

    public String getPath() {
      return path;
    }

    public void setPath(String path) {
      this.path = path;
    }

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
  }

  /** The Redis store. */
  public static class Redis {
    /** Redis URI; default: the application's LettuceConnectionFactory, if there is one. */
    private String url;

    /** Command timeout: past it the store counts as unavailable and store-failure applies. */
    private Duration timeout = Duration.ofMillis(250);

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
  }
}

package dev.ratelimit.servlet;

import dev.ratelimit.Clock;
import dev.ratelimit.Decision;
import dev.ratelimit.Decisions;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Limit;
import dev.ratelimit.LimitCall;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.store.RateLimitStore;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Rate limits HTTP requests: each request matching a rule spends from its key's bucket; every
 * limited response carries the rate limit headers, and a denied request gets 429 with
 * {@code Retry-After} and an RFC 9457 problem body (DESIGN.md §6). Several rules matching one
 * request apply all or nothing. A request is counted once, on the first dispatch the filter
 * sees; forwards, includes, error pages and async dispatches of it pass through.
 *
 * <p>In {@code web.xml}, configured by init-params ({@code limits}, {@code rules},
 * {@code headers}, {@code trusted-proxies}, {@code missing-key}, {@code store-failure},
 * {@code key-resolver}, or the short form {@code limit}, {@code key}, {@code cost}); a bad one
 * stops the filter from starting, and so the application from serving. The state lives in memory
 * unless a {@link RateLimitStore} is in the servlet context attribute {@value #STORE_ATTRIBUTE}
 * (put there by a listener) when the filter starts. In code:
 *
 * <pre>{@code
 * RateLimitFilter filter = RateLimitFilter.builder()
 *     .limit("api", "token-bucket rate=100 period=1m")
 *     .rule("/api/*", "api", "ip", 1)
 *     .trustedProxies("10.0.0.0/8")
 *     .build();
 * FilterRegistration.Dynamic registration = servletContext.addFilter("rateLimit", filter);
 * registration.setAsyncSupported(true);
 * registration.addMappingForUrlPatterns(null, false, "/*");   // null: the REQUEST dispatch only
 * }</pre>
 */
public class RateLimitFilter extends HttpFilter {
  private static final long serialVersionUID = 1L;

  /** A servlet context attribute holding the {@link RateLimitStore} for filters configured by init-params. */
  public static final String STORE_ATTRIBUTE = "dev.ratelimit.servlet.store";

  private static final AtomicInteger INSTANCES = new AtomicInteger();

  /** Marks a request this filter has seen; one name per filter, so that two filters both count. */
  private final String counted = RateLimitFilter.class.getName() + ".counted." + INSTANCES.incrementAndGet();
  private transient volatile Settings settings;

  /** A filter configured from its init-params when the container starts it. */
  public RateLimitFilter() {}

  private RateLimitFilter(Settings settings) {
    this.settings = settings;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Everything a configured filter needs; immutable. */
  record Settings(RateLimiter limiter, boolean ownsLimiter, Rules rules, Headers headers, MissingKey missingKey,
      RejectionHandler rejection) {}

  @Override
  public void init() throws ServletException {
    if (settings != null) {
      for (String name : Collections.list(getInitParameterNames())) {
        if (InitParams.NAMES.contains(name)) {
          throw new ServletException("rate limit filter '" + getFilterName()
              + "' is configured by its builder; remove its init-param '" + name + "'");
        }
      }
      return;
    }
    try {
      Object store = getServletContext().getAttribute(STORE_ATTRIBUTE);
      settings = InitParams.read(getFilterName(), getFilterConfig(), store);
    } catch (IllegalArgumentException e) {
      String message = "rate limit filter '" + getFilterName() + "' not started: " + e.getMessage();
      getServletContext().log(message);
      throw new ServletException(message, e);
    }
  }

  @Override
  protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    Settings settings = this.settings;
    if (settings == null) {
      throw new ServletException("rate limit filter used before init");
    }
    if (request.getAttribute(counted) != null) {
      chain.doFilter(request, response); // a later dispatch of a request already counted
      return;
    }
    request.setAttribute(counted, Boolean.TRUE);
    Rule[] matched = settings.rules().matching(request);
    if (matched.length == 0) {
      chain.doFilter(request, response);
      return;
    }
    String[] keys = new String[matched.length];
    int applied = 0;
    for (int i = 0; i < matched.length; i++) {
      String key = matched[i].key().resolve(request);
      if (key == null) {
        switch (settings.missingKey()) {
          case GLOBAL -> key = "";
          case SKIP -> {
            continue;
          }
          case DENY -> {
            settings.rejection().reject(request, response,
                Rejection.missingKey(matched[i].limit(), matched[i].keyName()));
            return;
          }
        }
      }
      keys[i] = BuiltInKeys.bounded(key);
      applied++;
    }
    if (applied == 0) {
      chain.doFilter(request, response);
      return;
    }
    if (applied < matched.length) {
      // rules whose key was missing under "skip" drop out (matched is shared: copy, never write to it)
      Rule[] rules = new Rule[applied];
      String[] present = new String[applied];
      for (int i = 0, at = 0; i < matched.length; i++) {
        if (keys[i] != null) {
          rules[at] = matched[i];
          present[at++] = keys[i];
        }
      }
      decideAndFilter(settings, request, response, chain, rules, present);
    } else {
      decideAndFilter(settings, request, response, chain, matched, keys);
    }
  }

  private void decideAndFilter(Settings settings, HttpServletRequest request, HttpServletResponse response,
      FilterChain chain, Rule[] rules, String[] keys) throws IOException, ServletException {
    RateLimiter limiter = settings.limiter();
    boolean allowed;
    long retryAfterMillis;
    String denying;
    try {
      if (rules.length == 1) {
        // the usual case, without the all-or-nothing call's lists
        Decision decision = limiter.limit(rules[0].limit(), keys[0], rules[0].cost());
        settings.headers().write(response, rules[0], decision, limiter.clock());
        allowed = decision.allowed();
        retryAfterMillis = decision.retryAfterMillis();
        denying = rules[0].limit();
      } else {
        Decisions decisions = limiter.limitAll(calls(rules, keys));
        settings.headers().write(response, rules, decisions, limiter.clock());
        allowed = decisions.allowed();
        retryAfterMillis = decisions.retryAfterMillis();
        denying = rules[decisions.mostRestrictive()].limit();
      }
    } catch (StoreUnavailableException e) {
      // failure=closed: neither admitted nor counted
      RateLimitResponses.storeUnavailable(settings.rejection(), request, response, closedLimit(rules));
      return;
    }
    if (allowed) {
      chain.doFilter(request, response);
      return;
    }
    RateLimitResponses.rateLimited(settings.rejection(), request, response, denying, retryAfterMillis);
  }

  private static List<LimitCall> calls(Rule[] rules, String[] keys) {
    List<LimitCall> calls = new ArrayList<>(rules.length);
    for (int i = 0; i < rules.length; i++) {
      calls.add(new LimitCall(rules[i].limit(), keys[i], rules[i].cost()));
    }
    return calls;
  }

  /** The limit a 503 names: the first whose own policy is closed, else the first on the default policy. */
  private static String closedLimit(Rule[] rules) {
    for (Rule rule : rules) {
      if (rule.spec().failure() == FailurePolicy.CLOSED) {
        return rule.limit();
      }
    }
    for (Rule rule : rules) {
      if (rule.spec().failure() == null) {
        return rule.limit();
      }
    }
    return rules[0].limit();
  }

  /** The limiter's store is closed only when this filter made it. */
  @Override
  public void destroy() {
    Settings settings = this.settings;
    if (settings != null && settings.ownsLimiter()) {
      settings.limiter().close();
    }
  }

  /**
   * Configures a filter in code. Either give a {@link RateLimiter}, or its limits (and clock,
   * store, store failure policy) here; then the rules.
   */
  public static final class Builder {
    private RateLimiter limiter;
    private final RateLimiter.Builder limits = RateLimiter.builder();
    private boolean limitsConfigured;
    private final List<PendingRule> rules = new ArrayList<>();
    private ClientAddress clients = ClientAddress.direct();
    private Headers headers = Headers.DEFAULT;
    private MissingKey missingKey = MissingKey.GLOBAL;
    private RejectionHandler rejection = RejectionHandler.problemJson();

    private Builder() {}

    /** A rule before its key is resolved: the key is a spec ({@code ip}, ...) or a resolver. */
    private record PendingRule(UrlPattern pattern, String limit, String keySpec, KeyResolver key, double cost) {}

    /** Decides on this limiter (its limits, store and clock); the filter will not close it. */
    public Builder limiter(RateLimiter limiter) {
      this.limiter = Objects.requireNonNull(limiter, "limiter");
      return this;
    }

    /** Adds a named limit from a spec, such as {@code token-bucket rate=100 period=1m}. */
    public Builder limit(String name, String spec) {
      return limit(name, Limit.parse(spec));
    }

    public Builder limit(String name, Limit limit) {
      limits.limit(name, limit);
      limitsConfigured = true;
      return this;
    }

    /** The clock of the limiter this builder makes; for tests, a {@link dev.ratelimit.ManualClock}. */
    public Builder clock(Clock clock) {
      limits.clock(clock);
      limitsConfigured = true;
      return this;
    }

    public Builder store(RateLimitStore store) {
      limits.store(store);
      limitsConfigured = true;
      return this;
    }

    /** What limits without their own {@code failure=} do while a remote store is down. */
    public Builder storeFailure(FailurePolicy policy) {
      limits.storeFailure(policy);
      limitsConfigured = true;
      return this;
    }

    /** Requests matching the servlet url-pattern spend 1 unit of the limit, keyed by client address. */
    public Builder rule(String pattern, String limit) {
      return rule(pattern, limit, "ip", 1);
    }

    /**
     * Requests matching the servlet url-pattern spend {@code cost} units of the limit.
     *
     * @param key {@code ip}, {@code header:NAME}, {@code principal}, {@code param:NAME} or a
     *     {@link KeyResolver} class name
     */
    public Builder rule(String pattern, String limit, String key, double cost) {
      rules.add(new PendingRule(UrlPattern.parse(pattern), Objects.requireNonNull(limit, "limit"),
          Objects.requireNonNull(key, "key"), null, Rule.checkCost(cost)));
      return this;
    }

    public Builder rule(String pattern, String limit, KeyResolver key, double cost) {
      rules.add(new PendingRule(UrlPattern.parse(pattern), Objects.requireNonNull(limit, "limit"), null,
          Objects.requireNonNull(key, "key"), Rule.checkCost(cost)));
      return this;
    }

    /**
     * Requests whose path within the application (servlet path and path info) {@code matches}
     * spend {@code cost} units of the limit: for patterns of another syntax, such as Spring's
     * {@code /api/**}.
     *
     * @param pattern the pattern as written, for messages
     */
    public Builder rule(String pattern, Predicate<String> matches, String limit, KeyResolver key, double cost) {
      rules.add(new PendingRule(UrlPattern.custom(pattern, matches), Objects.requireNonNull(limit, "limit"), null,
          Objects.requireNonNull(key, "key"), Rule.checkCost(cost)));
      return this;
    }

    /** As {@link #rule(String, Predicate, String, KeyResolver, double)}, with a key as in {@code web.xml}. */
    public Builder rule(String pattern, Predicate<String> matches, String limit, String key, double cost) {
      rules.add(new PendingRule(UrlPattern.custom(pattern, matches), Objects.requireNonNull(limit, "limit"),
          Objects.requireNonNull(key, "key"), null, Rule.checkCost(cost)));
      return this;
    }

    /** Proxies whose forwarding headers are believed: addresses and CIDR blocks, comma- or space-separated. */
    public Builder trustedProxies(String proxies) {
      return clientAddress(ClientAddress.trusting(proxies));
    }

    public Builder clientAddress(ClientAddress clients) {
      this.clients = Objects.requireNonNull(clients, "clients");
      return this;
    }

    /** Header families: {@code legacy}, {@code ietf}, {@code none}, and {@code epoch}. Default: legacy, ietf. */
    public Builder headers(String families) {
      this.headers = Headers.parse(Objects.requireNonNull(families, "families"));
      return this;
    }

    public Builder missingKey(MissingKey policy) {
      this.missingKey = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** How refused requests are answered. Default: {@link RejectionHandler#problemJson()}. */
    public Builder rejectionHandler(RejectionHandler handler) {
      this.rejection = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /**
     * @throws IllegalStateException when both a limiter and limits are given, or no rule
     * @throws IllegalArgumentException naming the rule that refers to an unknown limit, a bad key
     *     or a cost no request could pay
     */
    public RateLimitFilter build() {
      return new RateLimitFilter(settings());
    }

    Settings settings() {
      if (limiter != null && limitsConfigured) {
        throw new IllegalStateException("give either a limiter or limits (with clock, store, storeFailure), not both");
      }
      if (rules.isEmpty()) {
        throw new IllegalStateException("no rules: a rate limit filter without rules would limit nothing");
      }
      RateLimiter decider = limiter != null ? limiter : limits.build();
      Map<String, Limit> known = decider.limits();
      List<Rule> resolved = new ArrayList<>(rules.size());
      for (PendingRule pending : rules) {
        try {
          KeyResolver key = pending.key() != null ? pending.key()
              : BuiltInKeys.parse(pending.keySpec(), clients, classLoader());
          resolved.add(Rule.of(pending.pattern(), pending.limit(), known, key, pending.cost()));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("rule '" + pending.pattern() + " " + pending.limit() + "': "
              + e.getMessage(), e);
        }
      }
      return new Settings(decider, limiter == null, new Rules(resolved), headers, missingKey, rejection);
    }
  }

  /** Where key resolver classes are found: the web application's loader while the container starts it. */
  static ClassLoader classLoader() {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    return context != null ? context : RateLimitFilter.class.getClassLoader();
  }
}

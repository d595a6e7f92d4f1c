package dev.ratelimit.http;

import dev.ratelimit.Limit;
import dev.ratelimit.http.builder.MissingKey;
import dev.ratelimit.limiter.RateLimiter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A front end's configuration while it is given (a builder's calls, {@code web.xml}'s
 * init-params, Spring Boot's {@code ratelimit.filter.rules}) and its one check when complete:
 * every front end shares it, so a rule means the same in each.
 */
public final class RuleSetup {
  private RateLimiter limiter;
  private final RateLimiter.Builder limits = RateLimiter.builder();
  private boolean limitsConfigured;
  private final List<PendingRule> rules = new ArrayList<>();
  private TrustedProxies clients = TrustedProxies.direct();
  private boolean trustAllProxies;
  private RateLimitHeaders headers = RateLimitHeaders.DEFAULT;
  private MissingKey missingKey = MissingKey.GLOBAL;
  private Keys.Custom customKeys = Keys.Custom.NONE;

  /** A rule before its key is resolved: the key is a spec ({@code ip}, ...) or given. */
  private record PendingRule(UrlPattern pattern, String limit, String keySpec, RequestKey key, double cost,
      RuleOptions options) {

    /** The rule on the limiter's limits; a spec'd key is read now, with the client addresses finally set. */
    Rule resolve(Map<String, Limit> known, Map<String, Map<String, Limit>> plans, TrustedProxies clients,
        Keys.Custom custom) {
      try {
        RequestKey resolver = key != null ? key : Keys.parse(keySpec, clients, custom);
        return Rule.of(pattern, limit, known, plans, resolver, cost, options);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("rule '" + pattern + " " + limit + "': " + e.getMessage(), e);
      }
    }
  }

  public void limiter(RateLimiter limiter) {
    this.limiter = Objects.requireNonNull(limiter, "limiter");
  }

  /** The builder of the limiter the front end makes and owns: its limits, clock, store and failure policy. */
  public RateLimiter.Builder limits() {
    limitsConfigured = true;
    return limits;
  }

  public void rule(UrlPattern pattern, String limit, String keySpec, double cost) {
    rules.add(new PendingRule(pattern, Objects.requireNonNull(limit, "limit"), Objects.requireNonNull(keySpec, "key"),
        null, Rule.checkCost(cost), RuleOptions.NONE));
  }

  public void rule(UrlPattern pattern, String limit, RequestKey key, double cost) {
    rules.add(new PendingRule(pattern, Objects.requireNonNull(limit, "limit"), null, Objects.requireNonNull(key, "key"),
        Rule.checkCost(cost), RuleOptions.NONE));
  }

  /** Sets the methods and the counting statuses of the rule added last (either {@code null}: unchanged). */
  public void lastRule(Set<String> methods, ChargeOn chargeOn) {
    lastRule(new RuleOptions(methods, chargeOn, null, null));
  }

  /** Sets the options of the rule added last; each one {@code options} gives replaces the rule's. */
  public void lastRule(RuleOptions options) {
    if (rules.isEmpty()) {
      throw new IllegalStateException("methods, chargeOn, refundCancelled, costHeader, plan and condition apply to"
          + " the rule added last; add a rule first");
    }
    PendingRule last = rules.remove(rules.size() - 1);
    rules.add(new PendingRule(last.pattern(), last.limit(), last.keySpec(), last.key(), last.cost(),
        last.options().with(options)));
  }

  /** The front end's own key kinds, for the specs of rules given as text. */
  public void customKeys(Keys.Custom custom) {
    this.customKeys = Objects.requireNonNull(custom, "custom");
  }

  /** Replaces the trusted proxies and the header they write. */
  public void clients(TrustedProxies clients) {
    this.clients = Objects.requireNonNull(clients, "clients");
  }

  /** Trusts these proxies, with the header set so far; an all-covering list needs {@link #trustAllProxies()} first. */
  public void trustedProxies(String proxies) {
    this.clients = TrustedProxies.parse(proxies, clients.header(), trustAllProxies);
  }

  public void forwardedHeader(ProxyHeader header) {
    this.clients = clients.reading(header);
  }

  /** Allows trusted proxies that cover every address; checked when settled to be needed. */
  public void trustAllProxies() {
    this.trustAllProxies = true;
  }

  public TrustedProxies clients() {
    return clients;
  }

  public void headers(RateLimitHeaders headers) {
    this.headers = Objects.requireNonNull(headers, "headers");
  }

  public void missingKey(MissingKey policy) {
    this.missingKey = Objects.requireNonNull(policy, "policy");
  }

  /**
   * The settings of a front end with this configuration.
   *
   * @throws IllegalStateException when both a limiter and limits are given, no rule, or an allowance to
   *     trust every address that no trusted proxy entry uses
   * @throws IllegalArgumentException naming the rule that refers to an unknown limit, a bad key
   *     or a cost no request could pay
   */
  public RuleSettings settle() {
    if (limiter != null && limitsConfigured) {
      throw new IllegalStateException("give either a limiter or limits (with clock, store, storeFailure), not both");
    }
    if (rules.isEmpty()) {
      throw new IllegalStateException("no rules: a rate limit filter without rules would limit nothing");
    }
    if (trustAllProxies && !clients.trustsEveryAddress()) {
      // an allowance nothing uses is a misunderstanding: it does not itself trust anyone
      throw new IllegalStateException("trust-all-proxies is set, and no trusted proxy entry covers every address;"
          + " it only allows such an entry (0.0.0.0/0, ::/0): remove it, or list the proxies");
    }
    RateLimiter decider = limiter != null ? limiter : limits.build();
    Map<String, Limit> known = decider.limits();
    Map<String, Map<String, Limit>> plans = decider.plans();
    List<Rule> resolved = new ArrayList<>(rules.size());
    for (PendingRule pending : rules) {
      resolved.add(pending.resolve(known, plans, clients, customKeys));
    }
    return new RuleSettings(decider, limiter == null, new Rules(resolved), headers, missingKey);
  }
}

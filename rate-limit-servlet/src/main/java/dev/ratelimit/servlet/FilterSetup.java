package dev.ratelimit.servlet;

import dev.ratelimit.Limit;
import dev.ratelimit.RateLimiter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A filter's configuration while it is given, by {@link RateLimitFilter.Builder} or by
 * {@link InitParams}, and its one check when complete: both front ends share it, so a rule
 * means the same in code and in {@code web.xml}.
 */
final class FilterSetup {
  private RateLimiter limiter;
  private final RateLimiter.Builder limits = RateLimiter.builder();
  private boolean limitsConfigured;
  private final List<PendingRule> rules = new ArrayList<>();
  private ClientAddress clients = ClientAddress.direct();
  private boolean trustAllProxies;
  private Headers headers = Headers.DEFAULT;
  private MissingKey missingKey = MissingKey.GLOBAL;
  private RejectionHandler rejection = RejectionHandler.problemJson();

  /** A rule before its key is resolved: the key is a spec ({@code ip}, ...) or a resolver. */
  private record PendingRule(UrlPattern pattern, String limit, String keySpec, KeyResolver key, double cost,
      Set<String> methods, ChargeOn chargeOn) {

    /** The rule on the limiter's limits; a spec'd key is read now, with the client addresses finally set. */
    Rule resolve(Map<String, Limit> known, ClientAddress clients) {
      try {
        KeyResolver resolver = key != null ? key : BuiltInKeys.parse(keySpec, clients, BuiltInKeys.loader());
        return Rule.of(pattern, limit, known, resolver, cost, methods, chargeOn);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("rule '" + pattern + " " + limit + "': " + e.getMessage(), e);
      }
    }
  }

  void limiter(RateLimiter limiter) {
    this.limiter = Objects.requireNonNull(limiter, "limiter");
  }

  /** The builder of the limiter this filter makes and owns: its limits, clock, store and failure policy. */
  RateLimiter.Builder limits() {
    limitsConfigured = true;
    return limits;
  }

  void rule(UrlPattern pattern, String limit, String keySpec, double cost) {
    rules.add(new PendingRule(pattern, Objects.requireNonNull(limit, "limit"), Objects.requireNonNull(keySpec, "key"),
        null, Rule.checkCost(cost), null, null));
  }

  /** Sets the methods and the counting statuses of the rule added last (either {@code null}: unchanged). */
  void lastRule(Set<String> methods, ChargeOn chargeOn) {
    if (rules.isEmpty()) {
      throw new IllegalStateException("methods and chargeOn apply to the rule added last; add a rule first");
    }
    PendingRule last = rules.remove(rules.size() - 1);
    rules.add(new PendingRule(last.pattern(), last.limit(), last.keySpec(), last.key(), last.cost(),
        methods != null ? methods : last.methods(), chargeOn != null ? chargeOn : last.chargeOn()));
  }

  void rule(UrlPattern pattern, String limit, KeyResolver key, double cost) {
    rules.add(new PendingRule(pattern, Objects.requireNonNull(limit, "limit"), null, Objects.requireNonNull(key, "key"),
        Rule.checkCost(cost), null, null));
  }

  /** Replaces the trusted proxies and the header they write. */
  void clients(ClientAddress clients) {
    this.clients = Objects.requireNonNull(clients, "clients");
  }

  /** Trusts these proxies, with the header set so far; an all-covering list needs {@link #trustAllProxies()} first. */
  void trustedProxies(String proxies) {
    this.clients = ClientAddress.parse(proxies, clients.header(), trustAllProxies);
  }

  void forwardedHeader(ProxyHeader header) {
    this.clients = clients.reading(header);
  }

  /** Allows trusted proxies that cover every address; checked when settled to be needed. */
  void trustAllProxies() {
    this.trustAllProxies = true;
  }

  ClientAddress clients() {
    return clients;
  }

  void headers(Headers headers) {
    this.headers = Objects.requireNonNull(headers, "headers");
  }

  void missingKey(MissingKey policy) {
    this.missingKey = Objects.requireNonNull(policy, "policy");
  }

  void rejection(RejectionHandler handler) {
    this.rejection = Objects.requireNonNull(handler, "handler");
  }

  /**
   * The settings of a filter with this configuration.
   *
   * @throws IllegalStateException when both a limiter and limits are given, no rule, or an allowance to
   *     trust every address that no trusted proxy entry uses
   * @throws IllegalArgumentException naming the rule that refers to an unknown limit, a bad key
   *     or a cost no request could pay
   */
  FilterSettings settle() {
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
    List<Rule> resolved = new ArrayList<>(rules.size());
    for (PendingRule pending : rules) {
      resolved.add(pending.resolve(known, clients));
    }
    return new FilterSettings(decider, limiter == null, new Rules(resolved), headers, missingKey, rejection);
  }
}

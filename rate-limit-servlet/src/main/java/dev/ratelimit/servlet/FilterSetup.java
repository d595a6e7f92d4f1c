package dev.ratelimit.servlet;

import dev.ratelimit.http.ProxyHeader;
import dev.ratelimit.http.RateLimitHeaders;
import dev.ratelimit.http.RequestKey;
import dev.ratelimit.http.RuleOptions;
import dev.ratelimit.http.RuleSetup;
import dev.ratelimit.http.UrlPattern;
import dev.ratelimit.http.builder.MissingKey;
import dev.ratelimit.limiter.RateLimiter;
import java.util.Objects;

/**
 * A filter's configuration while it is given, by {@link RateLimitFilter.Builder} or by
 * {@link InitParams}: the shared {@link RuleSetup} (one check for every front end), in the
 * servlet's own types, and how refusals are written.
 */
final class FilterSetup {
  private final RuleSetup rules = new RuleSetup();
  private RejectionHandler rejection = RejectionHandler.problemJson();

  FilterSetup() {
    rules.customKeys(ServletKeys.classNames(ServletKeys.loader()));
  }

  /** The shared part, which {@link RateLimitFilter.Builder}'s shared methods fill directly. */
  RuleSetup rules() {
    return rules;
  }

  /** The builder of the limiter this filter makes and owns: its limits, clock, store and failure policy. */
  RateLimiter.Builder limits() {
    return rules.limits();
  }

  void rule(UrlPattern pattern, String limit, String keySpec, double cost) {
    rules.rule(pattern, limit, keySpec, cost);
  }

  void ruleOn(UrlPattern pattern, String limit, RequestKey key, double cost) {
    rules.rule(pattern, limit, key, cost);
  }

  void rule(UrlPattern pattern, String limit, KeyResolver key, double cost) {
    rules.rule(pattern, limit, ServletKeys.key(Objects.requireNonNull(key, "key")), cost);
  }

  /** Sets the options of the rule added last; each one given replaces the rule's. */
  void lastRule(RuleOptions options) {
    rules.lastRule(options);
  }

  /** Replaces the trusted proxies and the header they write. */
  void clients(ClientAddress clients) {
    rules.clients(Objects.requireNonNull(clients, "clients").proxies());
  }

  /** Trusts these proxies, with the header set so far; an all-covering list needs {@link #trustAllProxies()} first. */
  void trustedProxies(String proxies) {
    rules.trustedProxies(proxies);
  }

  void forwardedHeader(ProxyHeader header) {
    rules.forwardedHeader(header);
  }

  /** Allows trusted proxies that cover every address; checked when settled to be needed. */
  void trustAllProxies() {
    rules.trustAllProxies();
  }

  ClientAddress clients() {
    return ClientAddress.of(rules.clients());
  }

  void headers(RateLimitHeaders headers) {
    rules.headers(headers);
  }

  void missingKey(MissingKey policy) {
    rules.missingKey(Objects.requireNonNull(policy, "policy"));
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
    return new FilterSettings(rules.settle(), rejection);
  }
}

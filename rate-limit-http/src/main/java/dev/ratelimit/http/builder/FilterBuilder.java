package dev.ratelimit.http.builder;

import dev.ratelimit.Clock;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Limit;
import dev.ratelimit.http.ChargeOn;
import dev.ratelimit.http.CostHeader;
import dev.ratelimit.http.ProxyHeader;
import dev.ratelimit.http.RateLimitHeaders;
import dev.ratelimit.http.RuleLine;
import dev.ratelimit.http.RuleOptions;
import dev.ratelimit.http.RuleSetup;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.RateLimitStore;
import java.util.Objects;

/**
 * What the builders of the servlet filter ({@code RateLimitFilter.builder()}) and the WebFlux
 * filter ({@code RateLimitWebFilter.builder()}) share, written once: the limiter or its limits,
 * the options of the rule added last, the proxies whose forwarded header is believed, and the
 * headers. Each front end adds its rules, in its own pattern syntax and request type, and builds.
 * Only the front ends make one: the constructor takes their shared configuration.
 *
 * @param <B> the front end's builder, which every method returns
 * @param <F> the filter it builds
 * @since 1.0
 */
public abstract class FilterBuilder<B extends FilterBuilder<B, F>, F> {
  private final RuleSetup setup;

  /** @param setup the front end's configuration, which this fills and its {@link #build()} settles */
  @SuppressWarnings("exports") // RuleSetup is the front ends' own: nobody else makes a builder
  protected FilterBuilder(RuleSetup setup) {
    this.setup = Objects.requireNonNull(setup, "setup");
  }

  @SuppressWarnings("unchecked") // B is the subclass itself, by the type's bound
  private B self() {
    return (B) this;
  }

  /** Decides on this limiter (its limits, store and clock); the filter will not close it. */
  public B limiter(RateLimiter limiter) {
    setup.limiter(limiter);
    return self();
  }

  /** Adds a named limit from a spec, such as {@code token-bucket rate=100 period=1m}. */
  public B limit(String name, String spec) {
    return limit(name, Limit.parse(spec));
  }

  public B limit(String name, Limit limit) {
    setup.limits().limit(name, limit);
    return self();
  }

  /** The clock of the limiter this builder makes; for tests, a {@link dev.ratelimit.ManualClock}. */
  public B clock(Clock clock) {
    setup.limits().clock(clock);
    return self();
  }

  public B store(RateLimitStore store) {
    setup.limits().store(store);
    return self();
  }

  /** What limits without their own {@code failure=} do while a remote store is down. */
  public B storeFailure(FailurePolicy policy) {
    setup.limits().storeFailure(policy);
    return self();
  }

  /**
   * The rule added last applies only to these HTTP methods ({@code "POST,PUT"}), as a rule's
   * {@code methods} in {@code web.xml} or {@code ratelimit.filter.rules}.
   *
   * @throws IllegalStateException before any rule
   */
  public B methods(String methods) {
    setup.lastRule(RuleLine.methods(Objects.requireNonNull(methods, "methods")), null);
    return self();
  }

  /**
   * The rule added last keeps its charge only for these response statuses ({@code "401,403"},
   * {@code "4xx"}, {@code "5xx"}); others are refunded once the status is known, as a rule's
   * {@code charge-on} in {@code web.xml} or {@code ratelimit.filter.rules}.
   *
   * @throws IllegalStateException before any rule
   */
  public B chargeOn(String statuses) {
    setup.lastRule(null, ChargeOn.parse(Objects.requireNonNull(statuses, "statuses")));
    return self();
  }

  /**
   * The rule added last, a {@link #chargeOn} rule, also refunds a request whose client went away
   * before its response was committed, even though its handler started, as a rule's
   * {@code refund-cancelled=true} in {@code web.xml} or {@code ratelimit.filter.rules}. Without
   * it such a request is charged: its work ran (docs/design.md §2.7). With it, a client that
   * hangs up before the answer gets that work for free.
   *
   * @throws IllegalStateException before any rule
   */
  public B refundCancelled() {
    setup.lastRule(new RuleOptions(null, null, null, null, true));
    return self();
  }

  /**
   * The rule added last charges its cost up front as an estimate, then settles each request with
   * the cost the application states in this response header ({@code "X-Cost"}: a plain decimal
   * number, 0 or more), as a rule's {@code cost-header} in {@code web.xml} or
   * {@code ratelimit.filter.rules}: the difference is given back, or taken into debt, once the
   * response is known. A response without a usable value keeps the estimate. The client does
   * not receive the header unless {@link #passCostHeader()} (docs/design.md §6.1).
   *
   * @throws IllegalArgumentException for a name that is not an HTTP header name
   * @throws IllegalStateException before any rule
   */
  public B costHeader(String header) {
    setup.lastRule(RuleOptions.costHeader(CostHeader.of(Objects.requireNonNull(header, "header"), false).name(), null));
    return self();
  }

  /**
   * The rule added last, a {@link #costHeader} rule, leaves its cost header in the response the
   * client receives, as {@code cost-header-pass=true}.
   *
   * @throws IllegalStateException before any rule
   */
  public B passCostHeader() {
    setup.lastRule(RuleOptions.costHeader(null, true));
    return self();
  }

  /**
   * Proxies whose forwarded header is believed: addresses and CIDR blocks, comma- or
   * space-separated. Entries that cover every address need {@link #trustAllProxies()} first.
   *
   * @throws IllegalArgumentException naming a bad entry, or the entries that trust every address
   */
  public B trustedProxies(String proxies) {
    setup.trustedProxies(proxies);
    return self();
  }

  /**
   * The header the trusted proxies write the client's address in, the only one read:
   * {@code x-forwarded-for} (the default), {@code forwarded} (RFC 7239) or {@code x-real-ip}.
   */
  public B forwardedHeader(String header) {
    setup.forwardedHeader(ProxyHeader.parse(Objects.requireNonNull(header, "header")));
    return self();
  }

  /**
   * Allows {@link #trustedProxies(String)} entries that cover every address ({@code 0.0.0.0/0},
   * {@code ::/0}): only for a deployment whose every peer is a proxy writing the forwarded
   * header, as anyone reaching the application directly could choose their own key.
   */
  public B trustAllProxies() {
    setup.trustAllProxies();
    return self();
  }

  /** Header families: {@code legacy}, {@code ietf}, {@code none}, and {@code epoch}. Default: legacy, ietf. */
  public B headers(String families) {
    setup.headers(RateLimitHeaders.parse(Objects.requireNonNull(families, "families")));
    return self();
  }

  /**
   * @throws IllegalStateException when both a limiter and limits are given, no rule, or
   *     {@link #trustAllProxies()} with no trusted proxy entry that needs it
   * @throws IllegalArgumentException naming the rule that refers to an unknown limit, a bad key
   *     or a cost no request could pay
   */
  public abstract F build();
}

package dev.ratelimit.servlet;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Limit;
import dev.ratelimit.http.Keys;
import dev.ratelimit.http.ProxyHeader;
import dev.ratelimit.http.RateLimitHeaders;
import dev.ratelimit.http.RequestKey;
import dev.ratelimit.http.Rule;
import dev.ratelimit.http.RuleLine;
import dev.ratelimit.http.RuleOptions;
import dev.ratelimit.http.UrlPattern;
import dev.ratelimit.http.builder.MissingKey;
import dev.ratelimit.store.RateLimitStore;
import jakarta.servlet.FilterConfig;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads a filter's {@code web.xml} init-params (docs/design.md §6), one method per parameter, into a
 * {@link FilterSetup}. Every error names the init-param and the value, or for a list the entry,
 * that is wrong, and stops the filter from starting.
 *
 * <p>Grammar: one entry per line ({@code ;} also separates), blank lines and {@code #} comments
 * ignored. {@code limits}: {@code NAME = SPEC}. {@code rules}: {@link RuleLine}. The short form
 * {@code limit} / {@code key} / {@code cost} is one limit named after the filter, applied to
 * every request the mapping covers.
 */
final class InitParams {
  static final String LIMITS = "limits";
  static final String RULES = "rules";
  static final String LIMIT = "limit";
  static final String KEY = "key";
  static final String COST = "cost";
  static final String HEADERS = "headers";
  static final String TRUSTED_PROXIES = "trusted-proxies";
  static final String FORWARDED_HEADER = "forwarded-header";
  static final String TRUST_ALL_PROXIES = "trust-all-proxies";
  static final String MISSING_KEY = "missing-key";
  static final String STORE_FAILURE = "store-failure";
  static final String KEY_RESOLVER = "key-resolver";
  private static final List<String> ORDER = List.of(LIMITS, RULES, LIMIT, KEY, COST, HEADERS, TRUSTED_PROXIES,
      FORWARDED_HEADER, TRUST_ALL_PROXIES, MISSING_KEY, STORE_FAILURE, KEY_RESOLVER);
  static final Set<String> NAMES = Set.copyOf(ORDER);

  private final Map<String, String> params;
  private final FilterSetup setup = new FilterSetup();
  /** The limits read so far: each rule is checked against them as it is read, so that its error names its entry. */
  private final Map<String, Limit> limits = new LinkedHashMap<>();
  private final ClassLoader loader = ServletKeys.loader();
  private RequestKey defaultKey;

  private InitParams(Map<String, String> params) {
    this.params = params;
  }

  /**
   * The settings of a filter configured by its init-params.
   *
   * @param store the servlet context's {@link RateLimitFilter#STORE_ATTRIBUTE}, or null
   * @throws IllegalArgumentException naming the init-param and the bad value
   */
  static FilterSettings read(String filterName, FilterConfig config, Object store) {
    Map<String, String> params = new LinkedHashMap<>();
    for (String name : Collections.list(config.getInitParameterNames())) {
      params.put(name, config.getInitParameter(name));
    }
    return read(filterName, params, store);
  }

  static FilterSettings read(String filterName, Map<String, String> params, Object store) {
    return new InitParams(params).settings(filterName, store);
  }

  private FilterSettings settings(String filterName, Object store) {
    refuseUnknownNames();
    clientAddress();
    setup.headers(single(HEADERS, RateLimitHeaders::parse, RateLimitHeaders.DEFAULT));
    setup.missingKey(single(MISSING_KEY, MissingKey::parse, MissingKey.GLOBAL));
    setup.limits().storeFailure(single(STORE_FAILURE, InitParams::storeFailure, FailurePolicy.LOCAL));
    store(store);
    defaultKey = single(KEY_RESOLVER, value -> new ServletKeys.Custom(ServletKeys.instantiate(value, loader)),
        Keys.ip(setup.clients().proxies()));
    limits();
    int rules = shortForm(filterName) + rules();
    if (rules == 0) {
      throw new IllegalArgumentException("no rules: give init-param 'rules' (" + RuleLine.GRAMMAR + " per line)"
          + " or 'limit' (one limit for every request the filter mapping covers)");
    }
    return setup.settle();
  }

  /** The client addresses first: the ip keys of the default and of every rule read them. */
  private void clientAddress() {
    if (single(TRUST_ALL_PROXIES, InitParams::bool, false)) {
      setup.trustAllProxies();
    }
    setup.forwardedHeader(single(FORWARDED_HEADER, ProxyHeader::parse, ProxyHeader.X_FORWARDED_FOR));
    single(TRUSTED_PROXIES, value -> {
      setup.trustedProxies(value);
      return value;
    }, "");
  }

  private void refuseUnknownNames() {
    for (String name : params.keySet()) {
      if (!NAMES.contains(name)) {
        throw new IllegalArgumentException("unknown init-param '" + name + "'; allowed: " + String.join(", ", ORDER));
      }
    }
  }

  /** The servlet context's store, put there by a listener; without one the state lives in memory. */
  private void store(Object store) {
    if (store == null) {
      return;
    }
    if (!(store instanceof RateLimitStore rateLimitStore)) {
      throw new IllegalArgumentException("servlet context attribute '" + RateLimitFilter.STORE_ATTRIBUTE
          + "' holds a " + store.getClass().getName() + ", not a " + RateLimitStore.class.getName());
    }
    setup.limits().store(rateLimitStore);
  }

  /** {@code limits}: {@code NAME = SPEC} per entry. */
  private void limits() {
    for (String entry : entries(LIMITS)) {
      entry(LIMITS, entry, () -> {
        int eq = entry.indexOf('=');
        String name = eq < 0 ? "" : entry.substring(0, eq).strip();
        if (name.isEmpty() || name.chars().anyMatch(Character::isWhitespace)) {
          throw new IllegalArgumentException("expected NAME = SPEC, e.g. api = token-bucket rate=100 period=1m");
        }
        addLimit(name, Limit.parse(entry.substring(eq + 1).strip()));
      });
    }
  }

  /** {@code limit}, {@code key}, {@code cost}: one limit named after the filter on {@code /*}; 1 rule, or 0. */
  private int shortForm(String filterName) {
    if (!params.containsKey(LIMIT)) {
      for (String param : List.of(KEY, COST)) {
        if (params.containsKey(param)) {
          throw new IllegalArgumentException("init-param '" + param + "' belongs to the short form and needs init-param"
              + " 'limit'; with 'rules', write " + param + "= in each rule");
        }
      }
      return 0;
    }
    String name = limitName(filterName);
    if (limits.containsKey(name)) {
      throw new IllegalArgumentException("init-param 'limit' makes a limit named after the filter, '" + name
          + "', and init-param 'limits' defines '" + name + "' too; rename one");
    }
    addLimit(name, single(LIMIT, Limit::parse, null));
    RequestKey key = single(KEY, value -> ServletKeys.parse(value, setup.clients(), loader), defaultKey);
    // a cost no request could pay is the cost's fault when given, else the limit's
    double cost = params.containsKey(COST)
        ? single(COST, value -> checked(name, key, RuleLine.cost(value)), 1.0)
        : single(LIMIT, value -> checked(name, key, 1), 1.0);
    setup.ruleOn(UrlPattern.parse("/*"), name, key, cost);
    return 1;
  }

  /** {@code rules}: a {@link RuleLine} per entry; the number of rules. */
  private int rules() {
    List<String> entries = entries(RULES);
    for (String entry : entries) {
      entry(RULES, entry, () -> {
        RuleLine line = RuleLine.parse(entry);
        UrlPattern pattern = UrlPattern.parse(line.pattern());
        RequestKey key = line.keySpec() == null ? defaultKey
            : ServletKeys.parse(line.keySpec(), setup.clients(), loader);
        double cost = line.cost() == null ? 1 : line.cost();
        RuleOptions options = new RuleOptions(line.methods(), line.chargeOn(), null, null, line.refundCancelled(),
            line.costHeader(), line.passCostHeader());
        Rule.of(pattern, line.limit(), limits, Map.of(), key, cost, options);
        setup.ruleOn(pattern, line.limit(), key, cost);
        setup.lastRule(options);
      });
    }
    return entries.size();
  }

  private void addLimit(String name, Limit limit) {
    setup.limits().limit(name, limit);
    limits.put(name, limit);
  }

  private double checked(String limit, RequestKey key, double cost) {
    Rule.of(UrlPattern.parse("/*"), limit, limits, key, cost);
    return cost;
  }

  /** A single-valued init-param, read by {@code parse}; its errors name the param and the value. */
  private <T> T single(String name, Parser<T> parse, T absent) {
    String value = params.get(name);
    if (value == null) {
      return absent;
    }
    try {
      return parse.parse(value.strip());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("init-param '" + name + "' = \"" + value.strip() + "\": " + e.getMessage(), e);
    }
  }

  /** One entry of a list init-param; its errors name the param and the entry. */
  private static void entry(String name, String entry, Runnable parse) {
    try {
      parse.run();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("init-param '" + name + "', entry \"" + entry + "\": " + e.getMessage(), e);
    }
  }

  /** The entries of a list init-param: lines or {@code ;}-separated, without blanks and {@code #} comments. */
  private List<String> entries(String name) {
    String value = params.get(name);
    List<String> entries = new ArrayList<>();
    if (value == null) {
      return entries;
    }
    for (String line : value.split("\\R")) {
      int comment = line.indexOf('#');
      String text = comment < 0 ? line : line.substring(0, comment);
      for (String entry : text.split(";")) {
        if (!entry.isBlank()) {
          entries.add(entry.strip());
        }
      }
    }
    return entries;
  }

  private static boolean bool(String value) {
    return switch (value) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("expected true or false");
    };
  }

  private static FailurePolicy storeFailure(String value) {
    for (FailurePolicy policy : FailurePolicy.values()) {
      if (policy.spec().equals(value)) {
        return policy;
      }
    }
    throw new IllegalArgumentException("unknown policy '" + value + "'; allowed: open, closed, local");
  }

  /**
   * The short form's limit is named after the filter, in kebab-case as limit names must be:
   * {@code rateLimit} and {@code RateLimit} give {@code rate-limit}, {@code api limiter} gives
   * {@code api-limiter}.
   */
  static String limitName(String filterName) {
    String kebab = filterName.strip()
        .replaceAll("([a-z0-9])([A-Z])", "$1-$2")
        .toLowerCase(Locale.ROOT)
        .replaceAll("[^a-z0-9]+", "-")
        .replaceAll("^-+|-+$", "");
    return kebab.isEmpty() ? "default" : kebab;
  }

  @FunctionalInterface
  private interface Parser<T> {
    T parse(String value);
  }
}

package dev.ratelimit.servlet;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Limit;
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
 * Reads a filter's {@code web.xml} init-params (DESIGN.md §6). Every error names the init-param
 * and the value, or for a list the entry, that is wrong, and stops the filter from starting.
 *
 * <p>Grammar: one entry per line ({@code ;} also separates), blank lines and {@code #} comments
 * ignored. {@code limits}: {@code NAME = SPEC}. {@code rules}:
 * {@code PATTERN LIMIT [key=KEY] [cost=N]}. The short form {@code limit} / {@code key} /
 * {@code cost} is one limit named after the filter, applied to every request the mapping covers.
 */
final class InitParams {
  static final String LIMITS = "limits";
  static final String RULES = "rules";
  static final String LIMIT = "limit";
  static final String KEY = "key";
  static final String COST = "cost";
  static final String HEADERS = "headers";
  static final String TRUSTED_PROXIES = "trusted-proxies";
  static final String MISSING_KEY = "missing-key";
  static final String STORE_FAILURE = "store-failure";
  static final String KEY_RESOLVER = "key-resolver";
  private static final List<String> ORDER = List.of(LIMITS, RULES, LIMIT, KEY, COST, HEADERS, TRUSTED_PROXIES,
      MISSING_KEY, STORE_FAILURE, KEY_RESOLVER);
  static final Set<String> NAMES = Set.copyOf(ORDER);

  private final Map<String, String> params;

  private InitParams(Map<String, String> params) {
    this.params = params;
  }

  /**
   * The settings of a filter configured by its init-params.
   *
   * @param store the servlet context's {@link RateLimitFilter#STORE_ATTRIBUTE}, or null
   * @throws IllegalArgumentException naming the init-param and the bad value
   */
  static RateLimitFilter.Settings read(String filterName, FilterConfig config, Object store) {
    Map<String, String> params = new LinkedHashMap<>();
    for (String name : Collections.list(config.getInitParameterNames())) {
      params.put(name, config.getInitParameter(name));
    }
    return read(filterName, params, store);
  }

  static RateLimitFilter.Settings read(String filterName, Map<String, String> params, Object store) {
    return new InitParams(params).settings(filterName, store);
  }

  private RateLimitFilter.Settings settings(String filterName, Object store) {
    for (String name : params.keySet()) {
      if (!NAMES.contains(name)) {
        throw new IllegalArgumentException("unknown init-param '" + name + "'; allowed: " + String.join(", ", ORDER));
      }
    }
    RateLimitFilter.Builder builder = RateLimitFilter.builder();
    ClientAddress clients = single(TRUSTED_PROXIES, ClientAddress::trusting, ClientAddress.direct());
    builder.clientAddress(clients);
    builder.headers(single(HEADERS, value -> {
      Headers.parse(value);
      return value;
    }, "legacy,ietf"));
    builder.missingKey(single(MISSING_KEY, MissingKey::parse, MissingKey.GLOBAL));
    builder.storeFailure(single(STORE_FAILURE, InitParams::storeFailure, FailurePolicy.LOCAL));
    if (store != null) {
      if (!(store instanceof RateLimitStore rateLimitStore)) {
        throw new IllegalArgumentException("servlet context attribute '" + RateLimitFilter.STORE_ATTRIBUTE
            + "' holds a " + store.getClass().getName() + ", not a " + RateLimitStore.class.getName());
      }
      builder.store(rateLimitStore);
    }
    ClassLoader loader = RateLimitFilter.classLoader();
    KeyResolver defaultKey = single(KEY_RESOLVER, value -> BuiltInKeys.instantiate(value, loader),
        new BuiltInKeys.Ip(clients));

    Map<String, Limit> limits = new LinkedHashMap<>();
    for (String entry : entries(LIMITS)) {
      entry(LIMITS, entry, () -> {
        int eq = entry.indexOf('=');
        String name = eq < 0 ? "" : entry.substring(0, eq).strip();
        if (name.isEmpty() || name.chars().anyMatch(Character::isWhitespace)) {
          throw new IllegalArgumentException("expected NAME = SPEC, e.g. api = token-bucket rate=100 period=1m");
        }
        Limit limit = Limit.parse(entry.substring(eq + 1).strip());
        builder.limit(name, limit);
        limits.put(name, limit);
      });
    }

    int rules = 0;
    if (params.containsKey(LIMIT)) {
      String name = limitName(filterName);
      if (limits.containsKey(name)) {
        throw new IllegalArgumentException("init-param 'limit' makes a limit named after the filter, '" + name
            + "', and init-param 'limits' defines '" + name + "' too; rename one");
      }
      Limit limit = single(LIMIT, Limit::parse, null);
      builder.limit(name, limit);
      limits.put(name, limit);
      KeyResolver key = single(KEY, value -> BuiltInKeys.parse(value, clients, loader), defaultKey);
      // a cost no request could pay is the cost's fault when given, else the limit's
      double cost = 1;
      if (params.containsKey(COST)) {
        cost = single(COST, value -> checked(name, limits, key, cost(value)), 1.0);
      } else {
        single(LIMIT, value -> checked(name, limits, key, 1), 1.0);
      }
      builder.rule("/*", name, key, cost);
      rules++;
    } else {
      for (String param : List.of(KEY, COST)) {
        if (params.containsKey(param)) {
          throw new IllegalArgumentException("init-param '" + param + "' belongs to the short form and needs init-param"
              + " 'limit'; with 'rules', write " + param + "= in each rule");
        }
      }
    }
    for (String entry : entries(RULES)) {
      entry(RULES, entry, () -> {
        String[] tokens = entry.split("\\s+");
        if (tokens.length < 2) {
          throw new IllegalArgumentException("expected PATTERN LIMIT [key=KEY] [cost=N]");
        }
        UrlPattern pattern = UrlPattern.parse(tokens[0]);
        String keySpec = null;
        Double cost = null;
        for (int i = 2; i < tokens.length; i++) {
          String token = tokens[i];
          if (token.startsWith("key=") && keySpec == null) {
            keySpec = token.substring("key=".length());
          } else if (token.startsWith("cost=") && cost == null) {
            cost = cost(token.substring("cost=".length()));
          } else if (token.startsWith("key=") || token.startsWith("cost=")) {
            throw new IllegalArgumentException("'" + token.substring(0, token.indexOf('=')) + "' is given twice");
          } else {
            throw new IllegalArgumentException("unknown option '" + token + "'; expected PATTERN LIMIT [key=KEY] [cost=N]");
          }
        }
        KeyResolver key = keySpec == null ? defaultKey : BuiltInKeys.parse(keySpec, clients, loader);
        double charge = cost == null ? 1 : cost;
        Rule.of(pattern, tokens[1], limits, key, charge);
        builder.rule(tokens[0], tokens[1], key, charge);
      });
      rules++;
    }
    if (rules == 0) {
      throw new IllegalArgumentException("no rules: give init-param 'rules' (PATTERN LIMIT [key=KEY] [cost=N] per line)"
          + " or 'limit' (one limit for every request the filter mapping covers)");
    }
    return builder.settings();
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

  private static double checked(String limit, Map<String, Limit> limits, KeyResolver key, double cost) {
    Rule.of(UrlPattern.parse("/*"), limit, limits, key, cost);
    return cost;
  }

  private static double cost(String text) {
    double cost;
    try {
      cost = Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("cost '" + text + "' is not a number");
    }
    return Rule.checkCost(cost);
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

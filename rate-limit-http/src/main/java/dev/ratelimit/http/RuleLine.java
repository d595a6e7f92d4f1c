package dev.ratelimit.http;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/**
 * One entry of the {@code rules} init-param, as written:
 * {@code PATTERN LIMIT [key=KEY] [cost=N] [methods=POST,PUT] [charge-on=401,403|4xx|5xx]
 * [refund-cancelled=true] [cost-header=X-Cost] [cost-header-pass=true]}.
 *
 * @param keySpec the {@code key=} value, or null for the filter's default key
 * @param cost the {@code cost=} value, or null for 1
 * @param methods the {@code methods=} value, or null for every method
 * @param chargeOn the {@code charge-on=} value, or null: every response counts
 * @param refundCancelled the {@code refund-cancelled=} value, or null: a request whose handler
 *     started is charged even when its client goes away
 * @param costHeader the {@code cost-header=} value, or null: a request costs {@code cost}
 * @param passCostHeader the {@code cost-header-pass=} value, or null: the cost header is taken
 *     out of the response
 */
public record RuleLine(String pattern, String limit, String keySpec, Double cost, Set<String> methods,
    ChargeOn chargeOn, Boolean refundCancelled, String costHeader, Boolean passCostHeader) {
  public static final String GRAMMAR = "PATTERN LIMIT [key=KEY] [cost=N] [methods=GET,POST] [charge-on=401,5xx]"
      + " [refund-cancelled=true] [cost-header=X-Cost] [cost-header-pass=true]";
  private static final String[] OPTIONS =
      {"key=", "cost=", "methods=", "charge-on=", "refund-cancelled=", "cost-header=", "cost-header-pass="};

  /** @throws IllegalArgumentException naming the option that is unknown, repeated or not valid */
  public static RuleLine parse(String entry) {
    String[] tokens = entry.split("\\s+");
    if (tokens.length < 2) {
      throw new IllegalArgumentException("expected " + GRAMMAR);
    }
    String[] values = new String[OPTIONS.length];
    for (int i = 2; i < tokens.length; i++) {
      String token = tokens[i];
      int option = option(token);
      if (option < 0) {
        throw new IllegalArgumentException("unknown option '" + token + "'; expected " + GRAMMAR);
      }
      if (values[option] != null) {
        throw new IllegalArgumentException("'" + token.substring(0, token.indexOf('=')) + "' is given twice");
      }
      values[option] = token.substring(OPTIONS[option].length());
    }
    return new RuleLine(tokens[0], tokens[1], values[0], values[1] == null ? null : cost(values[1]),
        values[2] == null ? null : methods(values[2]), values[3] == null ? null : ChargeOn.parse(values[3]),
        values[4] == null ? null : bool("refund-cancelled", values[4]),
        values[5] == null ? null : CostHeader.of(values[5], false).name(),
        values[6] == null ? null : bool("cost-header-pass", values[6]));
  }

  /** An option's {@code true} or {@code false}, in any case. */
  private static boolean bool(String option, String text) {
    if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(text);
    }
    String shown = text.length() <= 40 ? text : text.substring(0, 40) + "...";
    throw new IllegalArgumentException(option + " '" + shown + "' is not true or false");
  }

  private static int option(String token) {
    for (int i = 0; i < OPTIONS.length; i++) {
      if (token.startsWith(OPTIONS[i])) {
        return i;
      }
    }
    return -1;
  }

  /** A cost as written in {@code cost=} or the {@code cost} init-param. */
  public static double cost(String text) {
    double cost;
    try {
      cost = Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("cost '" + text + "' is not a number");
    }
    return Rule.checkCost(cost);
  }

  /** HTTP methods as written in {@code methods=}: comma-separated tokens, upper-cased. */
  public static Set<String> methods(String text) {
    Set<String> methods = new LinkedHashSet<>();
    for (String method : text.split(",", -1)) {
      String name = method.strip().toUpperCase(Locale.ROOT);
      if (!name.matches("[A-Z]{1,20}")) {
        String shown = method.strip().length() <= 40 ? method.strip() : method.strip().substring(0, 40) + "...";
        throw new IllegalArgumentException("method '" + shown + "' is not an HTTP method such as GET or POST");
      }
      methods.add(name);
    }
    return Set.copyOf(methods);
  }
}

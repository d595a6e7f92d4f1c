package dev.ratelimit.http;

/**
 * One entry of the {@code rules} init-param, as written: {@code PATTERN LIMIT [key=KEY] [cost=N]}.
 *
 * @param keySpec the {@code key=} value, or null for the filter's default key
 * @param cost the {@code cost=} value, or null for 1
 */
public record RuleLine(String pattern, String limit, String keySpec, Double cost) {
  public static final String GRAMMAR = "PATTERN LIMIT [key=KEY] [cost=N]";

  /** @throws IllegalArgumentException naming the option that is unknown, repeated or not a number */
  public static RuleLine parse(String entry) {
    String[] tokens = entry.split("\\s+");
    if (tokens.length < 2) {
      throw new IllegalArgumentException("expected " + GRAMMAR);
    }
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
        throw new IllegalArgumentException("unknown option '" + token + "'; expected " + GRAMMAR);
      }
    }
    return new RuleLine(tokens[0], tokens[1], keySpec, cost);
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
}

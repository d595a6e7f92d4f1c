package dev.ratelimit.spring.boot;

import dev.ratelimit.http.ChargeOn;
import dev.ratelimit.http.RuleLine;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.springframework.beans.factory.BeanFactory;

/**
 * {@code ratelimit.filter.rules}, read once for whichever filter the application runs (the
 * servlet one or the WebFlux one): each option checked on its own, so that a bad one stops the
 * application naming its property ({@code ratelimit.filter.rules[2].charge-on}). What needs the
 * limiter (the limit, the key, the cost) is checked by the filter's builder.
 */
public final class FilterRules {
  private FilterRules() {}

  /**
   * One rule, its options checked.
   *
   * @param index its place in {@code ratelimit.filter.rules}
   * @param methods the methods as the builders take them ({@code POST,PUT}), or null: every method
   * @param chargeOn the counting statuses as the builders take them, or null: every response counts
   * @param plan the plan expression, or null: the default plan
   * @param condition the condition, or null: the rule always applies
   */
  public record FilterRule(int index, String path, String limit, String key, double cost, String methods,
      String chargeOn, RequestExpression plan, RequestExpression condition) {

    /** {@code ratelimit.filter.rules[i]}, the rule's property, for messages. */
    public String property() {
      return "ratelimit.filter.rules[" + index + "]";
    }
  }

  /**
   * @param variables the variables the filter's expressions may name ({@code request}, {@code principal}, ...)
   * @throws InvalidLimitConfigurationException naming the property of the first bad option
   */
  public static List<FilterRule> read(RateLimitProperties properties, Set<String> variables, BeanFactory beanFactory) {
    List<RateLimitProperties.Rule> rules = properties.getFilter().getRules();
    List<FilterRule> read = new ArrayList<>(rules.size());
    for (int i = 0; i < rules.size(); i++) {
      RateLimitProperties.Rule rule = rules.get(i);
      String property = "ratelimit.filter.rules[" + i + "]";
      read.add(new FilterRule(i, rule.getPath(), rule.getLimit(), rule.getKey(), rule.getCost(),
          methods(property + ".methods", rule.getMethods()), chargeOn(property + ".charge-on", rule.getChargeOn()),
          expression(property + ".plan", rule.getPlan(), variables, beanFactory),
          expression(property + ".condition", rule.getCondition(), variables, beanFactory)));
    }
    return read;
  }

  private static String methods(String property, List<String> methods) {
    if (methods == null) {
      return null;
    }
    String text = String.join(",", methods);
    try {
      if (methods.isEmpty()) {
        // no method at all would be a rule that never applies: a mistake, not a wish
        throw new IllegalArgumentException("no methods given; leave it out for every method");
      }
      RuleLine.methods(text);
      return text;
    } catch (IllegalArgumentException e) {
      throw invalid(property, text, e);
    }
  }

  private static String chargeOn(String property, String chargeOn) {
    if (chargeOn == null) {
      return null;
    }
    try {
      ChargeOn.parse(chargeOn);
      return chargeOn;
    } catch (IllegalArgumentException e) {
      throw invalid(property, chargeOn, e);
    }
  }

  private static RequestExpression expression(String property, String text, Set<String> variables,
      BeanFactory beanFactory) {
    if (text == null) {
      return null;
    }
    try {
      return RequestExpression.parse(property, text, variables, beanFactory);
    } catch (IllegalArgumentException e) {
      throw invalid(property, text, e);
    }
  }

  private static InvalidLimitConfigurationException invalid(String property, String value, IllegalArgumentException e) {
    return new InvalidLimitConfigurationException(property + "=" + shortened(value) + ": " + e.getMessage(), e);
  }

  /** A value as a message shows it: a pasted megabyte would bury the message. */
  static String shortened(String value) {
    return value.length() <= 200 ? value : value.substring(0, 200) + "... (" + value.length() + " characters)";
  }
}

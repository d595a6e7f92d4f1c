package dev.ratelimit.spring.boot;

import dev.ratelimit.http.ChargeOn;
import dev.ratelimit.http.CostHeader;
import dev.ratelimit.http.RuleLine;
import dev.ratelimit.http.builder.FilterBuilder;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.BeanFactory;

/**
 * {@code ratelimit.*} onto whichever filter the application runs (the servlet one, the WebFlux
 * one, a gateway route's): the settings and {@code ratelimit.filter.rules}, read once, each
 * option checked on its own, so that a bad one stops the application naming its property
 * ({@code ratelimit.filter.rules[2].charge-on}). Each front end adapts its builder as a
 * {@link Target}; what needs the limiter (the limit, the key, the cost) is checked by the builder.
 *
 * @since 1.0
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
   * @param refundCancelled whether a request whose client went away is refunded though its handler ran
   * @param costHeader the response header stating what a request really cost, or null: the cost is {@code cost}
   * @param costHeaderPass whether the client receives the cost header too
   */
  public record FilterRule(int index, String path, String limit, String key, double cost, String methods,
      String chargeOn, RequestExpression plan, RequestExpression condition, boolean refundCancelled,
      String costHeader, boolean costHeaderPass) {

    /** {@code ratelimit.filter.rules[i]}, the rule's property, for messages. */
    public String property() {
      return "ratelimit.filter.rules[" + index + "]";
    }
  }

  /**
   * Who the client is, as the settings said it to the builder (which checked them): the
   * expressions' {@code #clientAddress} finds the client as the {@code ip} key does.
   *
   * @param trustedProxies {@code ratelimit.trusted-proxies}, empty for none
   * @param forwardedHeader {@code ratelimit.forwarded-header}
   * @param trustAllProxies {@code ratelimit.trust-all-proxies}
   */
  public record ClientSettings(String trustedProxies, String forwardedHeader, boolean trustAllProxies) {}

  /** A front end's filter builder, as this fills it. */
  public interface Target<F> {
    /** The variables the front end's rule expressions may name ({@code request}, {@code principal}, ...). */
    List<String> variables();

    void headers(String families);

    void forwardedHeader(String header);

    void trustAllProxies();

    void trustedProxies(String proxies);

    /** Adds the rule, with its options. */
    void rule(FilterRule rule);

    /** Builds the rule alone (on the same limiter), so that its error names it. */
    void check(FilterRule rule);

    F build();
  }

  /**
   * A {@link Target} onto a front end's {@link FilterBuilder}, written once for every front end:
   * the settings go to the builder, and each rule with its methods and charge-on, checked first
   * alone on a fresh builder. The front end says how a rule's path, key, plan and condition read
   * in its own types.
   *
   * @param <B> the front end's builder
   * @param <F> the filter it builds
   */
  public abstract static class BuilderTarget<B extends FilterBuilder<B, F>, F> implements Target<F> {
    private final List<String> variables;
    private final B builder;
    private String trustedProxies = "";
    private String forwardedHeader = "x-forwarded-for";
    private boolean trustAllProxies;

    /**
     * @param variables the variables the front end's rule expressions may name
     * @param builder the builder the settings and rules go to
     */
    protected BuilderTarget(List<String> variables, B builder) {
      this.variables = List.copyOf(variables);
      this.builder = builder;
    }

    /** The builder, for what the properties don't say (a gateway route's one rule). */
    public B builder() {
      return builder;
    }

    /** Who the client is, as the settings given so far say (they come before the rules). */
    protected ClientSettings clientSettings() {
      return new ClientSettings(trustedProxies, forwardedHeader, trustAllProxies);
    }

    /** A builder on the same limiter with no settings and no rules: one rule is checked on it alone. */
    protected abstract B fresh();

    /** Adds the rule (path, limit, key, cost) to {@code builder}, with its plan and condition if it has them. */
    protected abstract void add(B builder, FilterRule rule);

    @Override
    public List<String> variables() {
      return variables;
    }

    @Override
    public void headers(String families) {
      builder.headers(families);
    }

    @Override
    public void forwardedHeader(String header) {
      builder.forwardedHeader(header);
      this.forwardedHeader = header;
    }

    @Override
    public void trustAllProxies() {
      builder.trustAllProxies();
      this.trustAllProxies = true;
    }

    @Override
    public void trustedProxies(String proxies) {
      builder.trustedProxies(proxies);
      this.trustedProxies = proxies;
    }

    @Override
    public void rule(FilterRule rule) {
      addWithOptions(builder, rule);
    }

    @Override
    public void check(FilterRule rule) {
      addWithOptions(fresh(), rule).build();
    }

    @Override
    public F build() {
      return builder.build();
    }

    private B addWithOptions(B to, FilterRule rule) {
      add(to, rule);
      if (rule.methods() != null) {
        to.methods(rule.methods());
      }
      if (rule.chargeOn() != null) {
        to.chargeOn(rule.chargeOn());
      }
      if (rule.refundCancelled()) {
        to.refundCancelled();
      }
      if (rule.costHeader() != null) {
        to.costHeader(rule.costHeader());
      }
      if (rule.costHeaderPass()) {
        to.passCostHeader();
      }
      return to;
    }
  }

  /**
   * The filter of {@code ratelimit.filter.rules} and the settings.
   *
   * @throws InvalidLimitConfigurationException naming the property of the first bad value
   */
  public static <F> F build(RateLimitProperties properties, BeanFactory beanFactory, Target<F> target) {
    settings(properties, target);
    String property = "ratelimit.filter.rules";
    try {
      for (FilterRule rule : read(properties, target.variables(), beanFactory)) {
        property = rule.property();
        target.check(rule);
        target.rule(rule);
      }
      property = "ratelimit.filter.rules";
      return target.build();
    } catch (InvalidLimitConfigurationException e) {
      throw e; // names its property already
    } catch (RuntimeException e) {
      throw new InvalidLimitConfigurationException(property + ": " + e.getMessage(), e);
    }
  }

  /**
   * {@code ratelimit.headers}, {@code forwarded-header}, {@code trust-all-proxies} and
   * {@code trusted-proxies} onto a filter's builder.
   *
   * @throws InvalidLimitConfigurationException naming the property of a bad value
   */
  public static void settings(RateLimitProperties properties, Target<?> target) {
    String property = "ratelimit.headers";
    try {
      target.headers(properties.getHeaders());
      property = "ratelimit.forwarded-header";
      target.forwardedHeader(properties.getForwardedHeader());
      if (properties.isTrustAllProxies()) {
        target.trustAllProxies(); // before the proxies, which it allows to cover every address
      }
      property = "ratelimit.trusted-proxies";
      if (!properties.getTrustedProxies().isBlank()) {
        target.trustedProxies(properties.getTrustedProxies());
      }
    } catch (RuntimeException e) {
      throw new InvalidLimitConfigurationException(property + ": " + e.getMessage(), e);
    }
  }

  /**
   * @param variables the variables the filter's expressions may name ({@code request}, {@code principal}, ...)
   * @throws InvalidLimitConfigurationException naming the property of the first bad option
   */
  public static List<FilterRule> read(RateLimitProperties properties, List<String> variables, BeanFactory beanFactory) {
    List<RateLimitProperties.Rule> rules = properties.getFilter().getRules();
    List<FilterRule> read = new ArrayList<>(rules.size());
    for (int i = 0; i < rules.size(); i++) {
      RateLimitProperties.Rule rule = rules.get(i);
      String property = "ratelimit.filter.rules[" + i + "]";
      read.add(new FilterRule(i, rule.getPath(), rule.getLimit(), rule.getKey(), rule.getCost(),
          methods(property + ".methods", rule.getMethods()), chargeOn(property + ".charge-on", rule.getChargeOn()),
          expression(property + ".plan", rule.getPlan(), variables, beanFactory),
          expression(property + ".condition", rule.getCondition(), variables, beanFactory),
          rule.isRefundCancelled(), costHeader(property + ".cost-header", rule.getCostHeader()),
          rule.isCostHeaderPass()));
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

  private static String costHeader(String property, String header) {
    if (header == null) {
      return null;
    }
    try {
      return CostHeader.of(header.strip(), false).name();
    } catch (IllegalArgumentException e) {
      throw invalid(property, header, e);
    }
  }

  private static RequestExpression expression(String property, String text, List<String> variables,
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

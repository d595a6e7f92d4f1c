package dev.ratelimit.spring;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;

/**
 * The variables an annotation's key or count names ({@code #user}, {@code #p0}, {@code #request}),
 * checked at startup against what the evaluation will define: a name that is neither a parameter
 * nor a documented variable would evaluate to null, the limit's global bucket, for every caller.
 *
 * @since 1.0
 */
public final class ExpressionVariables {
  /** The variables every evaluation may define besides the parameters. */
  static final List<String> DOCUMENTED = List.of("request", "principal");
  /** SpEL's own: the root object and the current one. */
  public static final Set<String> SPEL = Set.of("root", "this");
  private static final Pattern INDEXED = Pattern.compile("[pa](\\d+)");

  private ExpressionVariables() {}

  /**
   * The variable names in the expression, without {@code #}, in order of appearance (also for the
   * filter rules' SpEL keys, checked the same way by the Spring Boot module).
   */
  public static Set<String> of(Expression expression) {
    Set<String> names = new LinkedHashSet<>();
    if (expression instanceof SpelExpression spel) {
      collect(spel.getAST(), names);
    }
    return names;
  }

  /**
   * The beans the expression names ({@code @plans}, {@code @'plans.v2'}; {@code &factory} for a
   * factory bean itself), as {@code BeanFactory.containsBean} takes them, in order of appearance:
   * checked at startup like the variables, so that a typo stops the application instead of
   * failing on every request.
   */
  public static Set<String> beans(Expression expression) {
    Set<String> names = new LinkedHashSet<>();
    if (expression instanceof SpelExpression spel) {
      collectBeans(spel.getAST(), names);
    }
    return names;
  }

  private static void collect(SpelNode node, Set<String> names) {
    if (node instanceof VariableReference) {
      names.add(node.toStringAST().substring(1)); // "#name"
    }
    for (int i = 0; i < node.getChildCount(); i++) {
      collect(node.getChild(i), names);
    }
  }

  private static void collectBeans(SpelNode node, Set<String> names) {
    if (node instanceof BeanReference) {
      // "@name", "@'dotted.name'" or "&name" (a factory bean itself, which containsBean reads as such)
      String name = node.toStringAST();
      name = name.startsWith("@") ? name.substring(1) : name;
      if (name.length() > 1 && name.startsWith("'") && name.endsWith("'")) {
        name = name.substring(1, name.length() - 1);
      }
      names.add(name);
    }
    for (int i = 0; i < node.getChildCount(); i++) {
      collectBeans(node.getChild(i), names);
    }
  }

  /**
   * Checks that every variable exists when {@code method} is called.
   *
   * @param described the annotation attribute as written, for messages: {@code @RateLimited(name = "x", key = "#u")}
   * @throws RateLimitConfigurationException naming the method, the expression, the unknown name and the names that exist
   */
  static void check(Set<String> variables, Method method, ParameterNameDiscoverer discoverer, String described,
      String where) {
    String[] parameters = discoverer.getParameterNames(method);
    for (String name : variables) {
      if (SPEL.contains(name) || DOCUMENTED.contains(name) || isIndex(name, method)) {
        continue;
      }
      if (parameters == null) {
        throw new RateLimitConfigurationException(described + " on " + where + " names #" + name
            + ", but the parameter names of " + where + " are not in its class file: compile with -parameters"
            + " (Maven: <parameters>true</parameters> on the compiler plugin) or use #p0, #p1... by position;"
            + " the names that exist: " + String.join(", ", existing(null, method)));
      }
      if (!List.of(parameters).contains(name)) {
        throw new RateLimitConfigurationException(described + " on " + where + " names #" + name
            + ", which is neither a parameter nor a variable; the names that exist: "
            + String.join(", ", existing(parameters, method)));
      }
    }
  }

  private static boolean isIndex(String name, Method method) {
    java.util.regex.Matcher indexed = INDEXED.matcher(name);
    // digits only, short enough for an int: an index past the parameters is as unknown as a wrong name
    return indexed.matches() && name.length() < 6 && Integer.parseInt(indexed.group(1)) < method.getParameterCount();
  }

  private static List<String> existing(String[] parameters, Method method) {
    List<String> names = new ArrayList<>();
    if (parameters != null) {
      for (String parameter : parameters) {
        names.add("#" + parameter);
      }
    }
    for (int i = 0; i < method.getParameterCount(); i++) {
      names.add("#p" + i);
    }
    for (int i = 0; i < method.getParameterCount(); i++) {
      names.add("#a" + i);
    }
    for (String variable : DOCUMENTED) {
      names.add("#" + variable);
    }
    return names;
  }
}

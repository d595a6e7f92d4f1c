package dev.ratelimit.http;

import dev.ratelimit.internal.LogText;
import dev.ratelimit.internal.SpecText;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

/**
 * A rule's {@code cost-header}: the response header in which the application states what a
 * request really cost (docs/design.md §6.1). The request is charged the rule's cost up front, an
 * estimate, and settled with this header's value once its status is known; the header is taken
 * out of what the client receives unless {@link #passed()}.
 *
 * <p>A value is one plain decimal number, 0 or more, of at most {@value #MAX_CHARS} characters
 * ({@code 12}, {@code 0.5}); anything else (no header, two values, {@code -1}, {@code 1e309},
 * {@code NaN}, text) states nothing, and the charge stays as made. Each of the two faults, missing
 * and malformed, is logged once per rule: the application's, not the client's, doing.
 */
public final class CostHeader {
  private static final System.Logger LOG = System.getLogger(Charges.class.getName());
  /** The longest value read: enough for any count, short enough that parsing costs nothing. */
  static final int MAX_CHARS = 40;
  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
  private static final Pattern NUMBER = Pattern.compile("[0-9]+(\\.[0-9]+)?");

  private final String name;
  private final boolean passed;
  private final AtomicBoolean missingLogged = new AtomicBoolean();
  private final AtomicBoolean malformedLogged = new AtomicBoolean();

  private CostHeader(String name, boolean passed) {
    this.name = name;
    this.passed = passed;
  }

  /**
   * @param name an HTTP header name (a token)
   * @param passed whether the client receives the header too
   * @throws IllegalArgumentException for a name that is not an HTTP token
   */
  public static CostHeader of(String name, boolean passed) {
    Objects.requireNonNull(name, "name");
    if (!TOKEN.matcher(name).matches()) {
      String shown = name.length() <= 40 ? name : name.substring(0, 40) + "...";
      throw new IllegalArgumentException("cost-header '" + shown + "' is not a header name (an HTTP token such as X-Cost)");
    }
    return new CostHeader(name, passed);
  }

  public String name() {
    return name;
  }

  /** Whether the client receives the header; by default it is taken out of the response. */
  public boolean passed() {
    return passed;
  }

  /** Whether a header of this name is this one (header names are case-insensitive). */
  public boolean is(String header) {
    return name.equalsIgnoreCase(header);
  }

  /**
   * What the header's values state as the request's cost, or {@code -1} when they state none (no
   * value, several, or one that is not a plain decimal number); the first of each fault is logged.
   *
   * @param values the header's values as the application set them; empty when it set none
   * @param rule the rule, for the log line
   */
  double cost(List<String> values, Rule rule) {
    if (values.isEmpty()) {
      if (missingLogged.compareAndSet(false, true)) {
        LOG.log(System.Logger.Level.WARNING, "rate limit rule '" + rule.pattern() + " " + rule.limit()
            + "': the response has no " + name + " header, so the request is charged the rule's cost, "
            + SpecText.number(rule.cost()) + " (logged once per rule)");
      }
      return -1;
    }
    String value = values.size() == 1 ? values.get(0).strip() : null;
    if (value != null && value.length() <= MAX_CHARS && NUMBER.matcher(value).matches()) {
      return Double.parseDouble(value);
    }
    if (malformedLogged.compareAndSet(false, true)) {
      String seen = values.size() == 1 ? LogText.quoted(values.get(0)) : values.size() + " values";
      LOG.log(System.Logger.Level.WARNING, "rate limit rule '" + rule.pattern() + " " + rule.limit() + "': "
          + name + " " + seen + " is not one plain decimal number, 0 or more, so the request is charged the"
          + " rule's cost, " + SpecText.number(rule.cost()) + " (logged once per rule)");
    }
    return -1;
  }

  @Override
  public String toString() {
    return passed ? name + " (passed to the client)" : name;
  }
}

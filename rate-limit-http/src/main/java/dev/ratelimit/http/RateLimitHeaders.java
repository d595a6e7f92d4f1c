package dev.ratelimit.http;

import dev.ratelimit.Clock;
import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.limiter.Decisions;
import java.util.Locale;

/**
 * Writes the rate limit headers of docs/design.md §6: the legacy {@code X-RateLimit-*} family for the
 * most restrictive decision, and the IETF {@code RateLimit-Policy} / {@code RateLimit} fields
 * (draft-ietf-httpapi-ratelimit-headers-10) listing every limit that applied. Headers carry
 * whole units and whole seconds: remaining rounded down, times rounded up.
 */
public final class RateLimitHeaders {
  public static final RateLimitHeaders DEFAULT = new RateLimitHeaders(true, true, false);
  public static final String ALLOWED = "legacy, ietf, none, and epoch (X-RateLimit-Reset as absolute epoch seconds)";

  private final boolean legacy;
  private final boolean ietf;
  private final boolean epoch;

  RateLimitHeaders(boolean legacy, boolean ietf, boolean epoch) {
    this.legacy = legacy;
    this.ietf = ietf;
    this.epoch = epoch;
  }

  /**
   * Reads the {@code headers} setting: a comma- or space-separated list of {@code legacy},
   * {@code ietf}, {@code none} (alone), and {@code epoch} (with {@code legacy}).
   *
   * @throws IllegalArgumentException naming the unknown family
   */
  public static RateLimitHeaders parse(String value) {
    boolean legacy = false;
    boolean ietf = false;
    boolean none = false;
    boolean epoch = false;
    int count = 0;
    for (String family : value.strip().split("[,\\s]+")) {
      if (family.isEmpty()) {
        continue;
      }
      count++;
      switch (family.toLowerCase(Locale.ROOT)) {
        case "legacy" -> legacy = true;
        case "ietf" -> ietf = true;
        case "none" -> none = true;
        case "epoch" -> epoch = true;
        default -> throw new IllegalArgumentException("unknown header family '" + family + "'; allowed: " + ALLOWED);
      }
    }
    if (count == 0) {
      throw new IllegalArgumentException("no header family; allowed: " + ALLOWED);
    }
    if (none && count > 1) {
      throw new IllegalArgumentException("'none' can't be combined with other header families");
    }
    if (epoch && !legacy) {
      throw new IllegalArgumentException("'epoch' changes X-RateLimit-Reset and needs 'legacy'");
    }
    return new RateLimitHeaders(legacy, ietf, epoch);
  }

  /**
   * Sets the headers for the one rule that applied.
   *
   * @param clock the limiter's clock, read only for {@code epoch}
   */
  public void write(Response response, Rule rule, Decision decision, Clock clock) {
    write(response, rule.limit(), rule.policy(), decision, clock);
  }

  /**
   * Sets the headers for one limit's decision.
   *
   * @param policy the limit's {@link #policy} item
   */
  public void write(Response response, String name, String policy, Decision decision, Clock clock) {
    boolean fresh = fresh(response);
    if (legacy) {
      legacy(response, decision, clock, fresh);
    }
    if (ietf) {
      put(response, LimitHeader.POLICY, policy, true, fresh);
      long remaining = units(decision.remaining(), decision.limit());
      long reset = seconds(decision.resetAfterMillis());
      if (fresh) {
        response.addState(name, remaining, reset);
      } else {
        response.setHeader(LimitHeader.STATE.fieldName(), state(name, remaining, reset));
      }
    }
  }

  /** Sets the headers for several rules that applied together and their decisions (same order). */
  public void write(Response response, Rule[] rules, Decisions decisions, Clock clock) {
    String[] names = new String[rules.length];
    String[] policies = new String[rules.length];
    for (int i = 0; i < rules.length; i++) {
      names[i] = rules[i].limit();
      policies[i] = rules[i].policy();
    }
    write(response, names, policies, decisions, clock);
  }

  /** Sets the headers for several limits that applied together and their decisions (same order). */
  public void write(Response response, String[] names, String[] policyItems, Decisions decisions, Clock clock) {
    boolean fresh = fresh(response);
    if (legacy) {
      legacy(response, decisions.decisions().get(decisions.mostRestrictive()), clock, fresh);
    }
    if (ietf) {
      StringBuilder policies = new StringBuilder();
      StringBuilder states = new StringBuilder();
      for (int i = 0; i < names.length; i++) {
        if (i > 0) {
          policies.append(", ");
          states.append(", ");
        }
        policies.append(policyItems[i]);
        states.append(state(names[i], decisions.decisions().get(i)));
      }
      // a list made for this response: never the same string twice, so not a repeated value
      put(response, LimitHeader.POLICY, policies.toString(), false, fresh);
      put(response, LimitHeader.STATE, states.toString(), false, fresh);
    }
  }

  private void legacy(Response response, Decision decision, Clock clock, boolean fresh) {
    put(response, LimitHeader.LIMIT, units(decision.limit(), decision.limit()), fresh);
    put(response, LimitHeader.REMAINING, units(decision.remaining(), decision.limit()), fresh);
    put(response, LimitHeader.RESET, epoch
        ? seconds(clock.millis() + decision.resetAfterMillis())
        : seconds(decision.resetAfterMillis()), fresh);
  }

  /**
   * Whether the response has none of these headers yet (the usual case: nothing before this
   * filter sets them). Then they are added, which spares the container a search for an old value
   * per header; after another rate limit filter, they replace its values.
   */
  private boolean fresh(Response response) {
    return !response.containsHeader((legacy ? LimitHeader.LIMIT : LimitHeader.STATE).fieldName());
  }

  private static void put(Response response, LimitHeader header, String value, boolean repeated, boolean fresh) {
    if (fresh) {
      response.addHeader(header, value, repeated);
    } else {
      response.setHeader(header.fieldName(), value);
    }
  }

  /** A whole number, 0 or more ({@link #units} and {@link #seconds} never give less). */
  private static void put(Response response, LimitHeader header, long value, boolean fresh) {
    if (fresh) {
      response.addNumber(header, value);
    } else {
      response.setHeader(header.fieldName(), NumberText.of(value));
    }
  }

  /** {@code "api";q=100;w=60}: the capacity and the seconds to refill from empty (none for quotas). */
  public static String policy(String name, Limit limit) {
    long window = refillSeconds(limit);
    return '"' + name + "\";q=" + units(limit.capacity(), limit.capacity()) + (window < 0 ? "" : ";w=" + window);
  }

  /** {@code "api";r=42;t=17}: the units remaining and the seconds until the key is full again. */
  static String state(String name, Decision decision) {
    return state(name, units(decision.remaining(), decision.limit()), seconds(decision.resetAfterMillis()));
  }

  /** {@code "api";r=42;t=17} of whole units remaining and whole seconds: the one place this text is made. */
  public static String state(String name, long remaining, long resetSeconds) {
    // the numbers' text first: concatenating strings copies bytes, where concatenating longs converts digits
    return '"' + name + "\";r=" + NumberText.of(remaining) + ";t=" + NumberText.of(resetSeconds);
  }

  /** Seconds for an empty key to be full again, rounded up; -1 for a calendar quota ({@link Limit#refillTime}). */
  static long refillSeconds(Limit limit) {
    return limit.refillTime().map(time -> seconds(time.toMillis())).orElse(-1L);
  }

  /** Whole units, rounded down, never below 0; within float noise of the next unit counts as it. */
  public static long units(double value, double capacity) {
    double tolerance = 1e-12 * Math.max(1, capacity);
    return value <= 0 ? 0 : (long) Math.floor(value + tolerance);
  }

  /** Milliseconds as whole seconds, rounded up. */
  public static long seconds(long millis) {
    return millis <= 0 ? 0 : (millis + 999) / 1000;
  }
}

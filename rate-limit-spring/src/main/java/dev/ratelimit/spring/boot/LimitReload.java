package dev.ratelimit.spring.boot;

import dev.ratelimit.Limit;
import dev.ratelimit.internal.LogText;
import dev.ratelimit.limiter.RateLimiter;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;

/**
 * Applies a changed {@code ratelimit.limits.<name>} or {@code ratelimit.plans.<plan>.<name>}
 * when Spring Cloud announces a change of the environment ({@link EnvironmentChangeEvent}: a
 * config server refresh, {@code /actuator/refresh}, a Kubernetes config map), with
 * {@link dev.ratelimit.limiter.NamedLimiter#replace} (docs/design.md §7.1.1). Compared with what it last applied, not
 * with the limiter: a change made through the {@code ratelimits} endpoint stays until the
 * property itself changes. A bad spec is logged and changes nothing (the old limit stays, and
 * the property is applied once it is fixed); a limit or plan added or removed is logged as
 * needing a restart, as the limiter's limits and plans are fixed when it is built. Specs come
 * from a config server or a config map as often as from a file: a line shows them quoted and cut
 * (docs/design.md §10.1), a trailing line break included.
 */
final class LimitReload implements ApplicationListener<EnvironmentChangeEvent> {
  private static final Log LOG = LogFactory.getLog(LimitReload.class);
  private static final Bindable<Map<String, String>> LIMITS = Bindable.mapOf(String.class, String.class);
  private static final Bindable<Map<String, Map<String, String>>> PLANS = Bindable.of(
      ResolvableType.forClassWithGenerics(Map.class, ResolvableType.forClass(String.class),
          ResolvableType.forClassWithGenerics(Map.class, String.class, String.class)));

  private final RateLimiter limiter;
  private final Environment environment;
  /** What is in force from the properties: the limits, and plan → limit → spec. */
  private final Map<String, String> limits;
  private final Map<String, Map<String, String>> plans;

  LimitReload(RateLimiter limiter, Environment environment) {
    this.limiter = limiter;
    this.environment = environment;
    this.limits = new LinkedHashMap<>(limits());
    this.plans = new LinkedHashMap<>();
    plans().forEach((plan, specs) -> this.plans.put(plan, new LinkedHashMap<>(specs)));
  }

  @Override
  public void onApplicationEvent(EnvironmentChangeEvent event) {
    if (event.getKeys().stream().anyMatch(LimitReload::isLimitProperty)) {
      reload();
    }
  }

  private static boolean isLimitProperty(String key) {
    return key.startsWith("ratelimit.limits") || key.startsWith("ratelimit.plans");
  }

  /** Applies every spec that differs from the one last applied; one event at a time. */
  synchronized void reload() {
    Map<String, String> limitsNow = limits();
    apply(limits, limitsNow, null);
    Map<String, Map<String, String>> plansNow = plans();
    Set<String> planNames = new LinkedHashSet<>(plans.keySet());
    planNames.addAll(plansNow.keySet());
    for (String plan : planNames) {
      apply(plans.computeIfAbsent(plan, p -> new LinkedHashMap<>()), plansNow.getOrDefault(plan, Map.of()), plan);
    }
  }

  /** {@code applied} (a plan's, or the default plan's) brought to {@code now}, spec by spec. */
  private void apply(Map<String, String> applied, Map<String, String> now, String plan) {
    String prefix = plan == null ? "ratelimit.limits." : "ratelimit.plans." + plan + ".";
    for (Map.Entry<String, String> entry : now.entrySet()) {
      String name = entry.getKey();
      String spec = entry.getValue();
      if (Objects.equals(applied.get(name), spec)) {
        continue;
      }
      if (!isInForce(name, plan)) {
        LOG.warn(prefix + name + "=" + LogText.quoted(spec) + " is new: not applied, a new limit or plan needs a restart");
        applied.put(name, spec); // said once
      } else if (replace(prefix + name, name, plan, spec)) {
        applied.put(name, spec);
      }
    }
    for (Iterator<Map.Entry<String, String>> it = applied.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, String> entry = it.next();
      if (!now.containsKey(entry.getKey())) {
        if (isInForce(entry.getKey(), plan)) {
          LOG.warn(prefix + entry.getKey() + " was removed: " + LogText.quoted(entry.getValue()) + " stays in force until a restart,"
              + " as a limit or plan is fixed when the limiter is built");
        }
        it.remove(); // said once; given again, it is applied
      }
    }
  }

  private boolean isInForce(String name, String plan) {
    return plan == null ? limiter.limits().containsKey(name)
        : limiter.plans().getOrDefault(name, Map.of()).containsKey(plan);
  }

  /** Puts the spec in force; false, logged, when it can't be (the old limit stays). */
  private boolean replace(String property, String name, String plan, String spec) {
    try {
      Limit previous = limiter.named(name).onPlan(plan).replace(Limit.parse(spec));
      LOG.info(property + " changed: " + LogText.quoted(spec) + " in force (was '" + previous + "')");
      return true;
    } catch (IllegalArgumentException | UnsupportedOperationException e) {
      LOG.error(property + "=" + LogText.quoted(spec) + " not applied: " + LogText.quoted(e.getMessage())
          + "; the limit in force stays");
      return false;
    }
  }

  private Map<String, String> limits() {
    return Binder.get(environment).bind("ratelimit.limits", LIMITS).orElse(Map.of());
  }

  private Map<String, Map<String, String>> plans() {
    return Binder.get(environment).bind("ratelimit.plans", PLANS).orElse(Map.of());
  }
}

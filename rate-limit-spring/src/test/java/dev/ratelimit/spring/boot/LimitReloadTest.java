package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Limit;
import dev.ratelimit.limiter.RateLimiter;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.core.env.MapPropertySource;

/**
 * A changed {@code ratelimit.limits.*} applied on Spring Cloud's {@link EnvironmentChangeEvent},
 * in a real context: a property source changes, then the event is published, as Spring Cloud's
 * refresh does.
 */
@ExtendWith(OutputCaptureExtension.class)
class LimitReloadTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
      .withPropertyValues("ratelimit.limits.api=fixed-window rate=10 period=1m",
          "ratelimit.limits.login=fixed-window rate=5 period=15m",
          "ratelimit.plans.pro.api=fixed-window rate=100 period=1m");

  /** Puts the properties first in the environment, then announces their keys. */
  private static void change(AssertableApplicationContext context, Map<String, Object> properties) {
    Map<String, Object> source = new HashMap<>(properties);
    context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("changed", source));
    context.publishEvent(new EnvironmentChangeEvent(context, Set.copyOf(properties.keySet())));
  }

  private static Limit limit(AssertableApplicationContext context, String name) {
    return context.getBean(RateLimiter.class).limits().get(name);
  }

  @Test
  void changedLimit_isInForce_othersUntouched() {
    runner.run(context -> {
      Limit login = limit(context, "login");
      change(context, Map.of("ratelimit.limits.api", "fixed-window rate=20 period=1m"));
      assertThat(limit(context, "api")).isEqualTo(Limit.parse("fixed-window rate=20 period=1m"));
      assertThat(limit(context, "login")).isSameAs(login);
    });
  }

  @Test
  void changedPlan_isInForce_theDefaultPlanUntouched() {
    runner.run(context -> {
      change(context, Map.of("ratelimit.plans.pro.api", "fixed-window rate=200 period=1m"));
      RateLimiter limiter = context.getBean(RateLimiter.class);
      assertThat(limiter.plans().get("api").get("pro")).isEqualTo(Limit.parse("fixed-window rate=200 period=1m"));
      assertThat(limit(context, "api")).isEqualTo(Limit.parse("fixed-window rate=10 period=1m"));
    });
  }

  @Test
  void badSpec_isLogged_andTheOldLimitStays_untilItIsFixed(CapturedOutput output) {
    runner.run(context -> {
      change(context, Map.of("ratelimit.limits.api", "fixed-window rate=-3 period=1m"));
      assertThat(limit(context, "api")).isEqualTo(Limit.parse("fixed-window rate=10 period=1m"));
      assertThat(output).contains("ratelimit.limits.api=\"fixed-window rate=-3 period=1m\" not applied")
          .contains("the limit in force stays");
      context.getEnvironment().getPropertySources().remove("changed");
      change(context, Map.of("ratelimit.limits.api", "fixed-window rate=30 period=1m"));
      assertThat(limit(context, "api")).isEqualTo(Limit.parse("fixed-window rate=30 period=1m"));
    });
  }

  @Test
  void specWithALineBreak_fromAConfigMap_isLoggedEscaped_asOneLine(CapturedOutput output) {
    runner.run(context -> {
      change(context, Map.of("ratelimit.limits.api", "10/1m\n2026-01-01 WARN FORGED"));
      assertThat(limit(context, "api")).isEqualTo(Limit.parse("fixed-window rate=10 period=1m"));
      assertThat(output).contains("ratelimit.limits.api=\"10/1m\\n2026-01-01 WARN FORGED\" not applied")
          .doesNotContain("\n2026-01-01 WARN FORGED");
    });
  }

  @Test
  void newOrRemovedLimit_isLoggedAsNeedingARestart_andNothingChanges(CapturedOutput output) {
    runner.run(context -> {
      RateLimiter limiter = context.getBean(RateLimiter.class);
      Map<String, Limit> before = limiter.limits();
      change(context, Map.of("ratelimit.limits.exports", "fixed-window rate=1 period=1h"));
      assertThat(limiter.limits()).isEqualTo(before);
      assertThat(output).contains("ratelimit.limits.exports=\"fixed-window rate=1 period=1h\" is new")
          .contains("needs a restart");
    });
    runner.run(context -> {
      RateLimiter limiter = context.getBean(RateLimiter.class);
      Map<String, Limit> before = limiter.limits();
      // the runner's own properties replaced by a source without login
      assertThat(context.getEnvironment().getPropertySources().remove("test")).isNotNull();
      change(context, Map.of("ratelimit.limits.api", "fixed-window rate=10 period=1m",
          "ratelimit.plans.pro.api", "fixed-window rate=100 period=1m"));
      assertThat(limiter.limits()).isEqualTo(before);
      assertThat(output).contains("ratelimit.limits.login was removed: \"fixed-window rate=5 period=15m\" stays in force");
    });
  }

  @Test
  void unrelatedChange_orAnUnchangedSpec_replacesNothing() {
    runner.run(context -> {
      Limit api = limit(context, "api");
      change(context, Map.of("server.port", "9999"));
      assertThat(limit(context, "api")).isSameAs(api);
      change(context, Map.of("ratelimit.limits.api", "fixed-window rate=10 period=1m"));
      assertThat(limit(context, "api")).isSameAs(api); // the same spec: not replaced, so no state is touched
    });
  }

  @Test
  void withoutSpringCloudContext_thereIsNoReload() {
    runner.withClassLoader(new FilteredClassLoader("org.springframework.cloud.context"))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LimitReload.class));
    runner.run(context -> assertThat(context).hasSingleBean(LimitReload.class));
  }
}

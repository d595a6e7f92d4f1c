package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.ManualClock;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.limiter.NamedLimiter.TopKey;
import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.store.InMemoryStore;
import dev.ratelimit.store.RateLimitStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class RateLimitAutoConfigurationTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
      .withPropertyValues("ratelimit.limits.api=token-bucket rate=2 period=1m",
          "ratelimit.limits.send-message=10/1m capacity=3");

  public static class Greeter {
    @RateLimited(name = "api", key = "#name")
    public String greet(String name) {
      return "hello " + name;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class App {
    @Bean
    ManualClock clock() {
      return new ManualClock(1_767_225_600_000L);
    }

    @Bean
    Greeter greeter() {
      return new Greeter();
    }
  }

  @Test
  void limits_comeFromPropertiesOnTheInMemoryStore_andTheAnnotationWorks() {
    runner.withUserConfiguration(App.class).run(context -> {
      RateLimiter limiter = context.getBean(RateLimiter.class);
      assertThat(limiter.limits()).containsOnlyKeys("api", "send-message");
      assertThat(limiter.limits().get("send-message")).hasToString("token-bucket rate=10 period=1m capacity=3");
      assertThat(limiter.store()).as("not wrapped").isInstanceOf(InMemoryStore.class);
      Greeter greeter = context.getBean(Greeter.class);
      greeter.greet("ann");
      greeter.greet("ann");
      assertThatThrownBy(() -> greeter.greet("ann")).isInstanceOf(RateLimitExceededException.class);
      assertThat(limiter.clock()).as("the application's clock").isInstanceOf(ManualClock.class);
    });
  }

  @Test
  void everyBean_backsOffWhenTheApplicationDefinesItsOwn() {
    RateLimiter own = RateLimiter.builder().limit("api", "5/1s").build();
    runner.withBean(RateLimiter.class, () -> own).run(context ->
        assertThat(context.getBean(RateLimiter.class)).isSameAs(own));
    InMemoryStore store = new InMemoryStore(new ManualClock(), 10);
    runner.withBean(RateLimitStore.class, () -> store).run(context ->
        assertThat(context.getBean(RateLimiter.class).store()).isSameAs(store));
  }

  @Test
  void plans_namingALimitAbsentFromLimits_failStartup_andAPlanSpecIsInForce() {
    runner.withPropertyValues("ratelimit.plans.pro.search=100/1m").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause().hasMessageContaining(
          "ratelimit.plans.pro.search=100/1m: plan 'pro' names limit 'search', which ratelimit.limits does not define");
    });
    runner.withPropertyValues("ratelimit.plans.pro.api=token-bucket rate=5 period=1m").run(context -> {
      assertThat(context).hasNotFailed();
      dev.ratelimit.limiter.RateLimiter limiter = context.getBean(dev.ratelimit.limiter.RateLimiter.class);
      assertThat(limiter.named("api").onPlan("pro").limit("k", 5).allowed()).isTrue();
      assertThat(limiter.named("api").onPlan("pro").limit("k", 1).allowed()).isFalse();
      assertThat(limiter.named("api").limit("other", 2).allowed()).as("the default plan: capacity 2").isTrue();
      assertThat(limiter.named("api").limit("other", 1).allowed()).isFalse();
    });
    runner.withPropertyValues("ratelimit.plans.pro.api=token-bucket rate=5 period=1x").run(context ->
        assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("bad value '1x' for period"));
  }

  @Test
  void clock_isTheSystemOneByDefault_coarseOnRequest_andAnUnknownOneFailsStartupNamingIt() {
    runner.run(context -> assertThat(context.getBean(dev.ratelimit.Clock.class)).isSameAs(dev.ratelimit.Clock.system()));
    runner.withPropertyValues("ratelimit.clock=coarse").run(context ->
        assertThat(context.getBean(dev.ratelimit.Clock.class)).isSameAs(dev.ratelimit.Clock.coarse()));
    runner.withPropertyValues("ratelimit.clock=fast").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).hasStackTraceContaining("Failed to bind properties under 'ratelimit.clock'");
    });
  }

  @Test
  void badSpec_failsStartupWithAMessageNamingThePropertyAndTheToken() {
    runner.withPropertyValues("ratelimit.limits.login=token-bucket rate=5 period=15x").run(context -> {
      assertThat(context).hasFailed();
      Throwable failure = context.getStartupFailure();
      FailureAnalysis analysis = new RateLimitFailureAnalyzer().analyze(failure);
      assertThat(analysis).isNotNull();
      assertThat(analysis.getDescription()).contains("bad value '15x' for period")
          .contains("\"token-bucket rate=5 period=15x\"");
      assertThat(analysis.getAction()).contains("ratelimit.limits");
    });
  }

  @Test
  void limitNameThatIsNotKebabCase_failsStartup() {
    runner.withPropertyValues("ratelimit.limits[send_message]=10/1m").run(context -> {
      assertThat(context).hasFailed();
      FailureAnalysis analysis = new RateLimitFailureAnalyzer().analyze(context.getStartupFailure());
      assertThat(analysis.getDescription()).contains("ratelimit.limits.send_message=10/1m")
          .contains("invalid limit name 'send_message'");
    });
  }

  @Test
  void annotationNamingAnUnknownLimit_failsStartupThroughTheAnalyzer() {
    runner.withPropertyValues("ratelimit.limits.api=").withUserConfiguration(App.class)
        .withPropertyValues("ratelimit.limits.api=10/1m").run(context -> assertThat(context).hasNotFailed());
    ApplicationContextRunner withoutApi = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
        .withPropertyValues("ratelimit.limits.other=10/1m").withUserConfiguration(App.class);
    withoutApi.run(context -> {
      assertThat(context).hasFailed();
      FailureAnalysis analysis = new RateLimitFailureAnalyzer().analyze(context.getStartupFailure());
      assertThat(analysis.getDescription()).contains("@RateLimited(name = \"api\")").contains("configured limits: other");
    });
  }

  /**
   * The meters' own wiring, with a registry the test declares (the real app without one:
   * {@link MetricsHttpTest}): decisions from the listener, and the latency timer only on a store
   * that can fail.
   */
  @Test
  void micrometer_countsDecisionsByLimitOutcomeAndSource_andTimesOnlyARemoteStore() {
    ApplicationContextRunner withMetrics = runner.withConfiguration(AutoConfigurations.of(
        RateLimitMetricsAutoConfiguration.class)).withUserConfiguration(App.class).withBean(SimpleMeterRegistry.class);
    withMetrics.run(context -> {
      greetThrice(context.getBean(Greeter.class));
      MeterRegistry registry = context.getBean(MeterRegistry.class);
      assertThat(decisions(registry, "allowed", "store")).isEqualTo(2);
      assertThat(decisions(registry, "denied", "store")).isEqualTo(1);
      assertThat(decisions(registry, "allowed", "fallback")).isZero();
      assertThat(registry.get("ratelimit.store.latency").timer().count()).as("in memory: not timed").isZero();
      assertThat(registry.get("ratelimit.store.available").gauge().value()).isEqualTo(1);
      assertThat(context.getBean(RateLimiter.class).store()).isInstanceOf(InMemoryStore.class);
    });
    withMetrics.withBean(RateLimitStore.class, RemoteInMemoryStore::new).run(context -> {
      greetThrice(context.getBean(Greeter.class));
      MeterRegistry registry = context.getBean(MeterRegistry.class);
      assertThat(decisions(registry, "allowed", "store")).isEqualTo(2);
      assertThat(decisions(registry, "denied", "store")).isEqualTo(1);
      assertThat(registry.get("ratelimit.store.latency").timer().count()).isEqualTo(3);
      assertThat(RateLimitHealth.storeName(context.getBean(RateLimiter.class)))
          .isEqualTo("RemoteInMemoryStore");
    });
  }

  private static void greetThrice(Greeter greeter) {
    greeter.greet("ann");
    greeter.greet("ann");
    assertThatThrownBy(() -> greeter.greet("ann")).isInstanceOf(RateLimitExceededException.class);
  }

  private static double decisions(MeterRegistry registry, String outcome, String source) {
    return registry.get("ratelimit.decisions").tags("limit", "api", "outcome", outcome, "source", source)
        .functionCounter().count();
  }

  /** The in-memory store, saying it can fail: what a remote store looks like to the limiter. */
  static final class RemoteInMemoryStore implements RateLimitStore {
    private final InMemoryStore inner = new InMemoryStore();

    @Override
    public dev.ratelimit.store.KeySpace bind(String name, dev.ratelimit.Limit limit) {
      return inner.bind(name, limit);
    }
  }

  @Test
  void withoutMicrometer_orReactor_theRestStillWorks() {
    runner.withConfiguration(AutoConfigurations.of(RateLimitMetricsAutoConfiguration.class))
        .withUserConfiguration(App.class)
        .withClassLoader(new FilteredClassLoader(MeterRegistry.class, reactor.core.publisher.Mono.class))
        .run(context -> {
          assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitMetricsAutoConfiguration.RateLimitMeters.class);
          assertThat(context.getBean(Greeter.class).greet("bob")).isEqualTo("hello bob");
        });
  }

  @Test
  void topKeys_areTrackedByDefault_offOnRequest_andABadSizeOrWindowFailsStartupNamingIt() {
    runner.withUserConfiguration(App.class).run(context -> {
      context.getBean(Greeter.class).greet("ann");
      assertThat(context.getBean(RateLimiter.class).named("api").topKeys(10))
          .containsExactly(new TopKey("ann", 1, 0, 0));
      assertThat(context.getBean(RateLimitsEndpoint.class).key("api", "top"))
          .isEqualTo(new RateLimitsEndpoint.TopOffenders("api", List.of(new TopKey("ann", 1, 0, 0))));
    });
    runner.withUserConfiguration(App.class).withPropertyValues("ratelimit.top-keys.enabled=false").run(context -> {
      assertThatThrownBy(() -> context.getBean(RateLimiter.class).named("api").topKeys(10))
          .isInstanceOf(IllegalStateException.class);
      Object answer = context.getBean(RateLimitsEndpoint.class).key("api", "top");
      assertThat(answer).isInstanceOf(WebEndpointResponse.class);
      assertThat(((WebEndpointResponse<?>) answer).getStatus()).isEqualTo(404);
      assertThat(((WebEndpointResponse<?>) answer).getBody()).asString().contains("ratelimit.top-keys.enabled=false");
    });
    for (String bad : new String[] {"ratelimit.top-keys.size=0", "ratelimit.top-keys.window=0s"}) {
      runner.withPropertyValues(bad).run(context -> {
        assertThat(context).hasFailed();
        FailureAnalysis analysis = new RateLimitFailureAnalyzer().analyze(context.getStartupFailure());
        assertThat(analysis.getDescription()).as(bad).contains("ratelimit.top-keys (size=")
            .contains(bad.contains("size") ? "top keys size must be from 1 to 65536 but was 0"
                : "top keys window must be at least 1 ms but was PT0S");
      });
    }
  }

  @Test
  void endpoint_listsLimitsSpecsStoreAndDecisions() {
    runner.withUserConfiguration(App.class).run(context -> {
      context.getBean(Greeter.class).greet("ann");
      RateLimitsEndpoint.Report report = context.getBean(RateLimitsEndpoint.class).limits();
      assertThat(report.store()).isEqualTo("InMemoryStore");
      assertThat(report.storeAvailable()).isTrue();
      assertThat(report.limits().get("api")).isEqualTo(new RateLimitsEndpoint.LimitInfo("token-bucket rate=2 period=1m", 1, 0, 0, 0));
      assertThat(report.limits().get("send-message").spec()).isEqualTo("token-bucket rate=10 period=1m capacity=3");
    });
  }
}

package dev.ratelimit.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.ManualClock;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.limiter.RateLimiter;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** {@code @EnableRateLimiting} in a plain Spring context (no Boot), on a manual clock. */
class EnableRateLimitingTest {
  private AnnotationConfigApplicationContext context;

  @AfterEach
  void close() {
    if (context != null) {
      context.close();
    }
  }

  record User(String id) {}

  /** Ids of users: a bean the key expressions call. */
  public static class Keys {
    public String of(User user) {
      return "user:" + user.id();
    }
  }

  public static class Messages {
    private final AtomicInteger runs = new AtomicInteger();

    /** Calls that ran (read through the proxy, so a method, not the field). */
    public int runs() {
      return runs.get();
    }

    @RateLimited(name = "send", key = "#user.id")
    public String send(User user, String text) {
      runs.incrementAndGet();
      return "sent " + text;
    }

    @RateLimited(name = "tokens", key = "@keys.of(#p0)", count = "#a1.length() / 4")
    public String complete(User user, String prompt) {
      return "done";
    }

    @RateLimited(name = "send", key = "#user.id", count = "#weight")
    public String weighted(User user, double weight) {
      return "ok";
    }

    @RateLimited(name = "slow", maxWait = "2s")
    public String patient() {
      return "served";
    }

    @RateLimited(name = "send", key = "#user.id", fallback = "later")
    public String withFallback(User user) {
      return "now";
    }

    String later(User user, RateLimitExceededException e) {
      return "later for " + user.id() + " (" + e.limitName() + ")";
    }

    @RateLimited(name = "send", key = "#user.id")
    public CompletionStage<String> sendAsync(User user) {
      runs.incrementAndGet();
      return CompletableFuture.completedFuture("async");
    }

    @RateLimited(name = "send", key = "#user.id")
    public Mono<String> sendMono(User user) {
      runs.incrementAndGet();
      return Mono.just("mono");
    }

    @RateLimited(name = "send", key = "#user.id")
    public Flux<Integer> sendFlux(User user) {
      return Flux.just(1, 2, 3);
    }
  }

  /** Class-level limits apply to every public method; method-level ones add to them. */
  @RateLimited(name = "global")
  public static class Reports {
    public String daily() {
      return "daily";
    }

    @RateLimited(name = "send", key = "'reports'")
    public String weekly() {
      return "weekly";
    }
  }

  @Configuration
  @EnableRateLimiting
  static class App {
    @Bean
    ManualClock clock() {
      return new ManualClock(1_767_225_600_000L);
    }

    @Bean
    RateLimiter rateLimiter(ManualClock clock) {
      return RateLimiter.builder().clock(clock)
          .limit("send", "token-bucket rate=2 period=1m")
          .limit("tokens", "token-bucket rate=100 period=1m")
          .limit("slow", "token-bucket rate=1 period=1s")
          .limit("global", "fixed-window rate=3 period=1h")
          .build();
    }

    @Bean
    Keys keys() {
      return new Keys();
    }

    @Bean
    Messages messages() {
      return new Messages();
    }

    @Bean
    Reports reports() {
      return new Reports();
    }
  }

  private <T> T start(Class<T> bean, Class<?>... configuration) {
    context = new AnnotationConfigApplicationContext(configuration.length == 0 ? new Class<?>[] {App.class} : configuration);
    return context.getBean(bean);
  }

  @Test
  void rateLimited_deniesAfterTheCapacityPerKeyWithAnExceptionNamingTheLimit() {
    Messages messages = start(Messages.class);
    User ann = new User("ann");
    assertThat(messages.send(ann, "a")).isEqualTo("sent a");
    assertThat(messages.send(ann, "b")).isEqualTo("sent b");
    assertThatThrownBy(() -> messages.send(ann, "c"))
        .isInstanceOf(RateLimitExceededException.class)
        .hasMessage("Rate limit 'send' exceeded; retry after 30000 ms");
    assertThat(messages.runs()).as("the denied call did not run").isEqualTo(2);
    assertThat(messages.send(new User("bob"), "d")).as("another key").isEqualTo("sent d");
  }

  @Test
  void keyAndCount_areSpelOverParametersAndBeans() {
    Messages messages = start(Messages.class);
    RateLimiter limiter = context.getBean(RateLimiter.class);
    messages.complete(new User("ann"), "x".repeat(200));
    assertThat(limiter.named("tokens").check("user:ann", 0).remaining()).isEqualTo(50);
    assertThatThrownBy(() -> messages.complete(new User("ann"), "x".repeat(204)))
        .isInstanceOf(RateLimitExceededException.class);
  }

  @Test
  void count_thatIsNotAFiniteNumberAtLeastZero_isRefused() {
    Messages messages = start(Messages.class);
    assertThatThrownBy(() -> messages.weighted(new User("ann"), -1))
        .isInstanceOf(RateLimitCountException.class)
        .hasMessageContaining("count = \"#weight\"").hasMessageContaining("gave -1")
        .hasMessageContaining("must be a finite number from 0 to");
  }

  @Test
  void maxWait_waitsForItsTurnOnTheClock() {
    Messages messages = start(Messages.class);
    ManualClock clock = context.getBean(ManualClock.class);
    assertThat(messages.patient()).isEqualTo("served");
    long before = clock.millis();
    assertThat(messages.patient()).isEqualTo("served");
    assertThat(clock.millis() - before).as("waited on the manual clock").isEqualTo(1000);
  }

  @Test
  void fallback_isCalledWithTheExceptionOnDenial() {
    Messages messages = start(Messages.class);
    User ann = new User("ann");
    messages.withFallback(ann);
    messages.withFallback(ann);
    assertThat(messages.withFallback(ann)).isEqualTo("later for ann (send)");
  }

  @Test
  void classLevelLimits_applyToEveryPublicMethodAllOrNothingWithMethodLevelOnes() {
    Reports reports = start(Reports.class);
    RateLimiter limiter = context.getBean(RateLimiter.class);
    reports.weekly();
    reports.weekly();
    assertThatThrownBy(reports::weekly).isInstanceOf(RateLimitExceededException.class)
        .hasMessageContaining("'send'");
    assertThat(limiter.named("global").check("", 0).remaining()).as("the denied call took nothing from 'global'")
        .isEqualTo(1);
    reports.daily();
    assertThatThrownBy(reports::daily).hasMessageContaining("'global'");
  }

  @Test
  void completionStage_isLimitedWhenStarted_andADenialFailsTheStage() throws Exception {
    Messages messages = start(Messages.class);
    User ann = new User("ann");
    assertThat(messages.sendAsync(ann).toCompletableFuture().get()).isEqualTo("async");
    assertThat(messages.sendAsync(ann).toCompletableFuture().get()).isEqualTo("async");
    CompletionStage<String> denied = messages.sendAsync(ann);
    assertThatThrownBy(() -> denied.toCompletableFuture().get()).isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(RateLimitExceededException.class);
    assertThat(messages.runs()).as("the denied call never started").isEqualTo(2);
  }

  @Test
  void monoAndFlux_areLimitedWhenSubscribed_notWhenAssembled() {
    Messages messages = start(Messages.class);
    RateLimiter limiter = context.getBean(RateLimiter.class);
    User ann = new User("ann");
    Mono<String> mono = messages.sendMono(ann);
    assertThat(limiter.named("send").check("ann", 0).remaining()).as("assembling takes nothing").isEqualTo(2);
    StepVerifier.create(mono).expectNext("mono").verifyComplete();
    StepVerifier.create(mono).expectNext("mono").verifyComplete();
    StepVerifier.create(mono).expectError(RateLimitExceededException.class).verify();
    StepVerifier.create(messages.sendFlux(new User("bob")).collectList()).expectNext(java.util.List.of(1, 2, 3))
        .verifyComplete();
  }

  @Configuration
  @EnableRateLimiting
  static class UnknownLimit {
    @Bean
    RateLimiter rateLimiter() {
      return RateLimiter.builder().limit("api", "10/1m").build();
    }

    @Bean
    Messages messages() {
      return new Messages();
    }
  }

  @Test
  void unknownLimitName_failsAtStartupNamingTheMethodAndTheConfiguredLimits() {
    assertThatThrownBy(() -> start(Messages.class, UnknownLimit.class))
        .extracting(NestedExceptionUtils::getMostSpecificCause).isInstanceOf(RateLimitConfigurationException.class)
        .extracting(Throwable::getMessage).asString()
        .contains("on dev.ratelimit.spring.EnableRateLimitingTest$Messages.")
        .contains("names no configured limit; configured limits: api");
  }

  public static class BadSpel {
    @RateLimited(name = "api", key = "#user.")
    public void call(String user) {}
  }

  public static class BadWait {
    @RateLimited(name = "api", maxWait = "2")
    public void call() {}
  }

  public static class MissingFallback {
    @RateLimited(name = "api", fallback = "nowhere")
    public String call(String user) {
      return user;
    }
  }

  @Test
  void badAnnotations_failAtStartupNamingTheValue() {
    for (Class<?> bad : new Class<?>[] {BadSpel.class, BadWait.class, MissingFallback.class}) {
      context = new AnnotationConfigApplicationContext();
      context.registerBean(RateLimiter.class, () -> RateLimiter.builder().limit("api", "10/1m").build());
      context.register(RateLimitingConfiguration.class);
      context.registerBean(bad);
      assertThatThrownBy(context::refresh).as(bad.getSimpleName())
          .extracting(NestedExceptionUtils::getMostSpecificCause).isInstanceOf(RateLimitConfigurationException.class)
          .satisfies(e -> assertThat(e.getMessage()).containsAnyOf("is not a valid SpEL expression",
              "maxWait = \"2\"", "fallback 'nowhere' for"));
      context.close();
    }
    context = null;
  }

  public static class ChargeIfUnknownVariable {
    @RateLimited(name = "api", chargeIf = "#outcome == false")
    public boolean call() {
      return true;
    }
  }

  public static class ChargeIfOnMono {
    @RateLimited(name = "api", chargeIf = "#result == null")
    public reactor.core.publisher.Mono<String> call() {
      return reactor.core.publisher.Mono.just("x");
    }
  }

  public static class ConditionUnknownVariable {
    @RateLimited(name = "api", condition = "#missing")
    public void call() {}
  }

  public static class ChargeIfWithWait {
    @RateLimited(name = "api", chargeIf = "#result", maxWait = "1s")
    public boolean call() {
      return true;
    }
  }

  public static class ActualUnknownVariable {
    @RateLimited(name = "api", count = "10", actual = "#response.tokens")
    public String call() {
      return "x";
    }
  }

  public static class ActualNamingTheException {
    @RateLimited(name = "api", count = "10", actual = "#exception == null ? 1 : 2")
    public String call() {
      return "x";
    }
  }

  public static class ActualWithWait {
    @RateLimited(name = "api", count = "10", actual = "#result.length()", maxWait = "1s")
    public String call() {
      return "x";
    }
  }

  public static class ActualNotSpel {
    @RateLimited(name = "api", count = "10", actual = "#result.")
    public String call() {
      return "x";
    }
  }

  /** What the outcome-charging method saw: a counter the test reads. */
  public static class Logins {
    @RateLimited(name = "api", key = "#user", chargeIf = "#result == false", condition = "#user != 'admin'")
    public boolean login(String user, boolean ok) {
      return ok;
    }

    @RateLimited(name = "api", key = "#user", chargeIf = "#exception != null")
    public String risky(String user, boolean fail) {
      if (fail) {
        throw new IllegalStateException("failed");
      }
      return "ok";
    }
  }

  @Test
  void chargeIfAndCondition_chargeOnlyCountingOutcomes_andSkipWhenFalse() {
    context = new AnnotationConfigApplicationContext();
    RateLimiter limiter = RateLimiter.builder().limit("api", "fixed-window rate=2 period=1h").build();
    context.registerBean(RateLimiter.class, () -> limiter);
    context.register(RateLimitingConfiguration.class);
    context.registerBean(Logins.class);
    context.refresh();
    Logins logins = context.getBean(Logins.class);
    for (int i = 0; i < 5; i++) {
      assertThat(logins.login("eve", true)).isTrue();
      assertThat(logins.login("admin", false)).as("condition false: not limited").isFalse();
    }
    assertThat(logins.login("eve", false)).isFalse();
    assertThat(logins.login("eve", false)).isFalse();
    assertThatThrownBy(() -> logins.login("eve", true)).isInstanceOf(RateLimitExceededException.class);
    assertThat(limiter.named("api").check("admin", 0).remaining()).isEqualTo(2);

    for (int i = 0; i < 3; i++) {
      assertThat(logins.risky("fay", false)).isEqualTo("ok");
    }
    assertThatThrownBy(() -> logins.risky("fay", true)).isInstanceOf(IllegalStateException.class);
    assertThat(limiter.named("api").check("fay", 0).remaining()).as("one exception counted").isEqualTo(1);
  }

  @Test
  void badChargeIfAndCondition_failAtStartupNamingTheValue() {
    for (Class<?> bad : new Class<?>[] {ChargeIfUnknownVariable.class, ChargeIfOnMono.class,
        ConditionUnknownVariable.class, ChargeIfWithWait.class, ActualUnknownVariable.class,
        ActualNamingTheException.class, ActualWithWait.class, ActualNotSpel.class}) {
      context = new AnnotationConfigApplicationContext();
      context.registerBean(RateLimiter.class, () -> RateLimiter.builder().limit("api", "10/1m").build());
      context.register(RateLimitingConfiguration.class);
      context.registerBean(bad);
      assertThatThrownBy(context::refresh).as(bad.getSimpleName())
          .extracting(NestedExceptionUtils::getMostSpecificCause).isInstanceOf(RateLimitConfigurationException.class)
          .satisfies(e -> assertThat(e.getMessage()).containsAnyOf("names #outcome", "not supported on Mono",
              "names #missing", "chargeIf and maxWait conflict", "actual = \"#response.tokens\")",
              "names #exception", "actual and maxWait conflict", "actual = \"#result.\""));
      context.close();
    }
    context = null;
  }

  @Test
  void unannotatedBeans_areNotProxiedForRateLimiting() {
    Keys keys = start(Keys.class);
    assertThat(org.springframework.aop.support.AopUtils.isAopProxy(keys)).isFalse();
    assertThat(Duration.ofSeconds(1)).isNotNull();
  }
}

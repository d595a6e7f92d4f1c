package dev.ratelimit.spring.ai.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.spring.ai.RateLimitAdvisor;
import dev.ratelimit.spring.ai.ScriptedChatModel;
import dev.ratelimit.spring.boot.RateLimitAutoConfiguration;
import dev.ratelimit.spring.boot.RateLimitFailureAnalyzer;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientBuilderCustomizer;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** What {@code ratelimit.ai.*} makes, with Spring AI's own auto-configuration making the builder. */
class RateLimitAiAutoConfigurationTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, RateLimitAiAutoConfiguration.class,
          ToolCallingAutoConfiguration.class, ChatClientAutoConfiguration.class))
      .withUserConfiguration(App.class)
      .withPropertyValues("ratelimit.limits.llm-tokens=token-bucket rate=1000 period=1h",
          "ratelimit.limits.api=token-bucket rate=10 period=1m");

  @Configuration(proxyBeanMethods = false)
  static class App {
    @Bean
    ManualClock clock() {
      return new ManualClock(1_767_225_600_000L);
    }

    /** What a provider's auto-configuration makes. */
    @Bean
    ScriptedChatModel chatModel() {
      return new ScriptedChatModel();
    }
  }

  private static String failure(org.springframework.context.ApplicationContext context) {
    Throwable failure = ((org.springframework.boot.test.context.assertj.AssertableApplicationContext) context)
        .getStartupFailure();
    FailureAnalysis analysis = new RateLimitFailureAnalyzer().analyze(failure);
    assertThat(analysis).as("analysed: %s", failure).isNotNull();
    return analysis.getDescription();
  }

  @Test
  void limit_addsTheAdvisorToEveryClientFromTheBuilder() {
    runner.withPropertyValues("ratelimit.ai.limit=llm-tokens").run(context -> {
      assertThat(context).hasSingleBean(RateLimitAdvisor.class);
      RateLimiter limiter = context.getBean(RateLimiter.class);
      for (int i = 0; i < 2; i++) {
        ChatClient chat = context.getBean(ChatClient.Builder.class).build(); // a builder per injection point
        chat.prompt().user("hello").call().content();
      }
      assertThat(limiter.named("llm-tokens").check("", 0).remaining()).isEqualTo(1000 - 2 * 37);
      assertThat(context.getBean(RateLimitAdvisor.class).getOrder()).isEqualTo(RateLimitAdvisor.DEFAULT_ORDER);
    });
  }

  @Test
  void keyAndEstimate_areSpelOverTheCall() {
    runner.withPropertyValues("ratelimit.ai.limit=llm-tokens", "ratelimit.ai.key=#context['tenant']",
        "ratelimit.ai.estimate=#{defaultEstimate() + 100}", "ratelimit.ai.order=5").run(context -> {
          RateLimiter limiter = context.getBean(RateLimiter.class);
          ScriptedChatModel model = context.getBean(ScriptedChatModel.class);
          model.reports(null); // the estimate stays: it shows what was charged
          context.getBean(ChatClient.Builder.class).build().prompt().user("hello")
              .advisors(a -> a.param("tenant", "acme")).call().content();

          assertThat(limiter.named("llm-tokens").check("acme", 0).remaining()).isEqualTo(1000 - (2 + 100));
          assertThat(context.getBean(RateLimitAdvisor.class).getOrder()).isEqualTo(5);
        });
  }

  @Test
  void noLimit_disabled_orRateLimitingOff_addNoAdvisor() {
    runner.run(context -> {
      assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitAdvisor.class);
      assertThat(context).doesNotHaveBean(ChatClientBuilderCustomizer.class);
    });
    runner.withPropertyValues("ratelimit.ai.limit=llm-tokens", "ratelimit.ai.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitAdvisor.class));
    runner.withPropertyValues("ratelimit.ai.limit=llm-tokens", "ratelimit.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitAdvisor.class));
  }

  @Test
  void withoutSpringAi_nothingChanges() {
    runner.withClassLoader(new FilteredClassLoader(ChatClient.class)).withPropertyValues("ratelimit.ai.limit=llm-tokens")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitAdvisor.class));
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnAdvisor {
    @Bean
    RateLimitAdvisor myAdvisor(RateLimiter limiter) {
      return RateLimitAdvisor.builder(limiter, "api").key(call -> "mine").estimate(call -> 1).build();
    }
  }

  @Test
  void anApplicationsOwnAdvisor_isTheOneAdded() {
    runner.withUserConfiguration(OwnAdvisor.class).withPropertyValues("ratelimit.ai.limit=llm-tokens").run(context -> {
      assertThat(context).hasSingleBean(RateLimitAdvisor.class);
      context.getBean(ScriptedChatModel.class).reports(ScriptedChatModel.usage(4));
      context.getBean(ChatClient.Builder.class).build().prompt().user("hello").call().content();

      RateLimiter limiter = context.getBean(RateLimiter.class);
      assertThat(limiter.named("api").check("mine", 0).remaining()).isEqualTo(10 - 4);
      assertThat(limiter.named("llm-tokens").check("", 0).remaining()).isEqualTo(1000);
    });
  }

  @Test
  void unknownLimit_stopsTheApplicationNamingIt() {
    runner.withPropertyValues("ratelimit.ai.limit=llm-token").run(context ->
        assertThat(failure(context)).isEqualTo("The rate limit configuration is invalid: ratelimit.ai.limit=llm-token:"
            + " unknown limit 'llm-token'; the limits: llm-tokens, api"));
  }

  @Test
  void keyNamingAnUnknownVariable_stopsTheApplication() {
    runner.withPropertyValues("ratelimit.ai.limit=llm-tokens", "ratelimit.ai.key=#user").run(context ->
        assertThat(failure(context)).isEqualTo("The rate limit configuration is invalid: ratelimit.ai.key=#user:"
            + " '#user' names #user, which is not a variable here; the variables: #prompt, #context, #principal"));
  }

  @Test
  void estimateThatDoesNotParse_orIsEmpty_stopsTheApplication() {
    runner.withPropertyValues("ratelimit.ai.limit=llm-tokens", "ratelimit.ai.estimate=#prompt.contents.length() /")
        .run(context -> assertThat(failure(context)).startsWith("The rate limit configuration is invalid:"
            + " ratelimit.ai.estimate=#prompt.contents.length() /: '#prompt.contents.length() /' is not a valid SpEL"));
    runner.withPropertyValues("ratelimit.ai.limit=llm-tokens", "ratelimit.ai.key= ")
        .run(context -> assertThat(failure(context)).contains("ratelimit.ai.key="));
  }
}

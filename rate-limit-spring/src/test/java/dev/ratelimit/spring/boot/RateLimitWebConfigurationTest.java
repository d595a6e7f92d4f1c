package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.RateLimitFilter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.web.servlet.DispatcherServlet;

class RateLimitWebConfigurationTest {
  private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
      .withPropertyValues("ratelimit.limits.api=10/1m", "ratelimit.filter.rules[0].path=/api/**",
          "ratelimit.filter.rules[0].limit=api");

  @Test
  void filter_isRegisteredForTheRules_andTheMvcHandlerIsThere() {
    runner.run(context -> {
      assertThat(context).hasSingleBean(FilterRegistrationBean.class)
          .hasSingleBean(RateLimitExceptionResolver.class);
      assertThat(context.getBean(FilterRegistrationBean.class).getFilter()).isInstanceOf(RateLimitFilter.class);
    });
  }

  @Test
  void withoutRules_noFilterIsRegistered() {
    new WebApplicationContextRunner().withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
        .withPropertyValues("ratelimit.limits.api=10/1m")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(FilterRegistrationBean.class));
  }

  @Test
  void withoutTheServletModule_orMvc_theRestStillWorks() {
    runner.withClassLoader(new FilteredClassLoader(RateLimitFilter.class)).run(context ->
        assertThat(context).hasNotFailed().doesNotHaveBean(FilterRegistrationBean.class));
    runner.withClassLoader(new FilteredClassLoader(DispatcherServlet.class)).run(context ->
        assertThat(context).hasNotFailed().hasSingleBean(FilterRegistrationBean.class)
            .doesNotHaveBean(RateLimitExceptionResolver.class));
  }

  @Test
  void ruleOnAnUnknownLimit_orABadKey_failsStartupNamingTheRule() {
    runner.withPropertyValues("ratelimit.filter.rules[1].path=/x", "ratelimit.filter.rules[1].limit=apx").run(context -> {
      assertThat(context).hasFailed();
      FailureAnalysis analysis = new RateLimitFailureAnalyzer().analyze(context.getStartupFailure());
      assertThat(analysis.getDescription()).contains("ratelimit.filter.rules[1]").contains("unknown limit 'apx'");
    });
    runner.withPropertyValues("ratelimit.filter.rules[0].key=#{#request.}").run(context -> {
      assertThat(context).hasFailed();
      FailureAnalysis analysis = new RateLimitFailureAnalyzer().analyze(context.getStartupFailure());
      assertThat(analysis.getDescription()).contains("ratelimit.filter.rules[0]").contains("not a valid SpEL expression");
    });
    runner.withPropertyValues("ratelimit.headers=fancy").run(context -> {
      assertThat(context).hasFailed();
      assertThat(new RateLimitFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
          .contains("ratelimit.headers=fancy").contains("unknown header family 'fancy'");
    });
  }
}

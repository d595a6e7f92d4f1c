package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.RateLimitFilter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
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

  @Test
  void forwardedHeader_isTheOnlyOneRead_andTrustingEveryAddressNeedsTheFlag() {
    runner.withPropertyValues("ratelimit.trusted-proxies=127.0.0.1", "ratelimit.forwarded-header=x-real-ip").run(context -> {
      RateLimitFilter filter = (RateLimitFilter) context.getBean(FilterRegistrationBean.class).getFilter();
      // ten of one client behind the proxy, whatever X-Forwarded-For says, then another client
      for (int i = 0; i < 12; i++) {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api/x");
        request.setServletPath("/api/x");
        request.addHeader("X-Real-IP", i < 11 ? "203.0.113.9" : "203.0.113.10");
        request.addHeader("X-Forwarded-For", "198.51.100." + i);
        MockHttpServletResponse response = new MockHttpServletResponse();
        filter.doFilter(request, response, new MockFilterChain());
        assertThat(response.getStatus()).as("request %d", i).isEqualTo(i == 10 ? 429 : 200);
      }
    });
    runner.withPropertyValues("ratelimit.trusted-proxies=10.0.0.0/8 0.0.0.0/0").run(context -> {
      assertThat(context).hasFailed();
      assertThat(new RateLimitFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
          .contains("ratelimit.trusted-proxies").contains("entry '0.0.0.0/0' trusts every IPv4 address");
    });
    runner.withPropertyValues("ratelimit.trusted-proxies=0.0.0.0/0", "ratelimit.trust-all-proxies=true")
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(FilterRegistrationBean.class));
    runner.withPropertyValues("ratelimit.forwarded-header=x-forwarded-host").run(context -> {
      assertThat(context).hasFailed();
      assertThat(new RateLimitFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
          .contains("ratelimit.forwarded-header").contains("unknown forwarded header 'x-forwarded-host'");
    });
  }
}

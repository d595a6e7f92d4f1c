package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.ratelimit.ManualClock;
import dev.ratelimit.servlet.RateLimitFilter;
import dev.ratelimit.spring.RateLimitBusyException;
import dev.ratelimit.spring.RateLimited;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

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
    runner.withPropertyValues("ratelimit.filter.rules[0].key=#{#req.getHeader('X-Tenant')}").run(context -> {
      assertThat(context).hasFailed();
      FailureAnalysis analysis = new RateLimitFailureAnalyzer().analyze(context.getStartupFailure());
      assertThat(analysis.getDescription()).contains("ratelimit.filter.rules[0]").contains("names #req")
          .contains("the variables: #request, #principal");
    });
    runner.withPropertyValues("ratelimit.filter.rules[0].key=#{#request.getHeader('X-Tenant') + #principal}")
        .run(context -> assertThat(context).hasNotFailed());
    runner.withPropertyValues("ratelimit.headers=fancy").run(context -> {
      assertThat(context).hasFailed();
      assertThat(new RateLimitFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
          .contains("ratelimit.headers=fancy").contains("unknown header family 'fancy'");
    });
  }

  @Test
  void badRuleOptions_failStartupNamingTheProperty() {
    String huge = "P".repeat(100_000);
    String[][] cases = {
        {"ratelimit.filter.rules[0].methods=POST,GE T", "ratelimit.filter.rules[0].methods", "'GE T' is not an HTTP method"},
        {"ratelimit.filter.rules[0].methods=" + huge, "ratelimit.filter.rules[0].methods", "is not an HTTP method"},
        {"ratelimit.filter.rules[0].charge-on=999", "ratelimit.filter.rules[0].charge-on=999", "'999' is not a status"},
        {"ratelimit.filter.rules[0].charge-on=4xx,,", "ratelimit.filter.rules[0].charge-on=4xx,,", "'' is not a status"},
        {"ratelimit.filter.rules[0].charge-on=6xx", "ratelimit.filter.rules[0].charge-on", "'6xx' is not a status"},
        {"ratelimit.filter.rules[0].plan=pro", "ratelimit.filter.rules[0].plan=pro", "not a SpEL expression #{...}"},
        {"ratelimit.filter.rules[0].plan=#{#request.}", "ratelimit.filter.rules[0].plan", "not a valid SpEL expression"},
        {"ratelimit.filter.rules[0].condition=#{#user == null}", "ratelimit.filter.rules[0].condition", "names #user"},
        {"ratelimit.filter.rules[0].condition=#{#exchange != null}", "ratelimit.filter.rules[0].condition",
            "the variables: #"},
        {"ratelimit.filter.rules[0].refund-cancelled=true", "ratelimit.filter.rules[0]",
            "refund-cancelled applies to a rule with charge-on, and this rule has none"},
        {"ratelimit.filter.rules[0].plan=#{@plns.of(#principal)}", "ratelimit.filter.rules[0].plan",
            "names the bean @plns, and the application has no bean of that name"},
        {"ratelimit.filter.rules[0].condition=#{!@'internal.net'.contains(#clientAddress)}",
            "ratelimit.filter.rules[0].condition", "names the bean @internal.net"},
        {"ratelimit.filter.rules[0].key=#{@tenants.of(#principal)}", "ratelimit.filter.rules[0]",
            "names the bean @tenants"},
        {"ratelimit.filter.rules[0].cost-header=X Cost", "ratelimit.filter.rules[0].cost-header",
            "'X Cost' is not a header name"},
        {"ratelimit.filter.rules[0].cost-header=" + huge + ":", "ratelimit.filter.rules[0].cost-header",
            "PPP...' is not a header name"},
        {"ratelimit.filter.rules[0].cost-header-pass=true", "ratelimit.filter.rules[0]",
            "cost-header-pass applies to a rule with cost-header, and this rule has none"}};
    for (String[] bad : cases) {
      runner.withPropertyValues(bad[0]).run(context -> {
        assertThat(context).as(bad[0].substring(0, Math.min(80, bad[0].length()))).hasFailed();
        FailureAnalysis analysis = new RateLimitFailureAnalyzer().analyze(context.getStartupFailure());
        assertThat(analysis).as(bad[0].substring(0, Math.min(80, bad[0].length()))).isNotNull();
        assertThat(analysis.getDescription()).contains(bad[1]).contains(bad[2]).hasSizeLessThan(2_000);
      });
    }
    runner.withPropertyValues("ratelimit.filter.rules[0].methods=post, Put", "ratelimit.filter.rules[0].charge-on=4XX,503",
        "ratelimit.filter.rules[0].plan=#{#principal}",
        "ratelimit.filter.rules[0].condition=#{#request.method != 'OPTIONS'}",
        "ratelimit.filter.rules[0].refund-cancelled=true", "ratelimit.filter.rules[0].cost-header= x-cost ",
        "ratelimit.filter.rules[0].cost-header-pass=true")
        .run(context -> assertThat(context).hasNotFailed());
  }

  /** The application's own map from a user to a plan. */
  public static class Plans {
    public String of(String user) {
      return "pro";
    }
  }

  @Test
  void beansAndTheUsersVariables_areThereForRuleExpressions() {
    runner.withBean("plans", Plans.class, Plans::new)
        .withPropertyValues("ratelimit.filter.rules[0].plan=#{@plans.of(#principal)}",
            "ratelimit.filter.rules[0].condition=#{!#authorities.contains('ROLE_INTERNAL')"
                + " && !#clientAddress.in('10.0.0.0/8')}",
            "ratelimit.filter.rules[0].key=#{@plans.of(#principal) + ':' + #clientAddress}")
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(FilterRegistrationBean.class));
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

  @Test
  void filterOrder_isJustAfterSpringSecuritysChain_whenSecurityIsThere_elseFirst_orAsConfigured() {
    runner.run(context -> assertThat(context.getBean(FilterRegistrationBean.class).getOrder())
        .isEqualTo(RateLimitWebConfiguration.SECURITY_FILTER_ORDER + 1));
    runner.withPropertyValues("spring.security.filter.order=5").run(context ->
        assertThat(context.getBean(FilterRegistrationBean.class).getOrder()).isEqualTo(6));
    runner.withClassLoader(new FilteredClassLoader(SecurityFilterChain.class)).run(context ->
        assertThat(context.getBean(FilterRegistrationBean.class).getOrder()).isEqualTo(Ordered.HIGHEST_PRECEDENCE + 100));
    runner.withPropertyValues("ratelimit.filter.order=-1000").run(context ->
        assertThat(context.getBean(FilterRegistrationBean.class).getOrder()).isEqualTo(-1000));
  }

  @Test
  void missingKey_isSettable_andABadValueFailsStartupNamingIt() {
    runner.withPropertyValues("ratelimit.filter.missing-key=deny").run(context -> assertThat(context.getBean(
        RateLimitProperties.class).getFilter().getMissingKey()).isEqualTo(dev.ratelimit.http.builder.MissingKey.DENY));
    runner.withPropertyValues("ratelimit.filter.missing-key=SKIP").run(context -> assertThat(context.getBean(
        RateLimitProperties.class).getFilter().getMissingKey()).isEqualTo(dev.ratelimit.http.builder.MissingKey.SKIP));
    runner.withPropertyValues("ratelimit.filter.missing-key=sometimes").run(context -> assertThat(context)
        .hasFailed().getFailure().rootCause().hasMessageContaining("sometimes"));
  }

  @RestController
  static class Limited {
    private final Service service;

    Limited(Service service) {
      this.service = service;
    }

    @GetMapping("/send")
    String send(@RequestParam double count) {
      return service.send(count);
    }
  }

  public static class Service {
    @RateLimited(name = "api", count = "#count")
    public String send(double count) {
      return "sent";
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableWebMvc
  static class Mvc {
    @Bean
    Service service() {
      return new Service();
    }

    @Bean
    Limited limited(Service service) {
      return new Limited(service);
    }
  }

  @Test
  void withoutTheServletModule_aDenialIsStillThe429_andABadCountThe400() {
    new WebApplicationContextRunner().withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
        .withPropertyValues("ratelimit.limits.api=token-bucket rate=2 period=1m")
        .withClassLoader(new FilteredClassLoader(RateLimitFilter.class))
        .withUserConfiguration(Mvc.class, ManualClockConfig.class)
        .run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(PlainRateLimitExceptionResolver.class)
              .doesNotHaveBean(RateLimitExceptionResolver.class);
          MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
          mvc.perform(get("/send").param("count", "2")).andExpect(status().isOk());
          mvc.perform(get("/send").param("count", "1")).andExpect(status().isTooManyRequests())
              .andExpect(header().string("Retry-After", "30"))
              .andExpect(content().contentType("application/problem+json"))
              .andExpect(jsonPath("$.limit").value("api")).andExpect(jsonPath("$.retryAfter").value(30))
              .andExpect(jsonPath("$.status").value(429));
          mvc.perform(get("/send").param("count", "3")).andExpect(status().isBadRequest())
              .andExpect(content().contentType("application/problem+json"))
              .andExpect(jsonPath("$.limit").value("api")).andExpect(jsonPath("$.count").value(3))
              .andExpect(jsonPath("$.maxCount").value(2))
              .andExpect(jsonPath("$.detail").value("Count 3 for rate limit 'api' must be a finite number from 0 to 2"));
        });
  }

  /** Without rate-limit-servlet too, a decision the store refused to queue is the busy 503, not a 500. */
  @Test
  void plainResolver_answersABusyStoreWith503AndRetryAfter() throws Exception {
    MockHttpServletRequest request = new MockHttpServletRequest("GET", "/send");
    MockHttpServletResponse response = new MockHttpServletResponse();
    new PlainRateLimitExceptionResolver(new ManualClock(0)).resolveException(request, response, null,
        new RateLimitBusyException("api", new java.util.concurrent.RejectedExecutionException("full")));
    assertThat(response.getStatus()).isEqualTo(503);
    assertThat(response.getHeader("Retry-After")).isEqualTo("1");
    assertThat(response.getContentType()).isEqualTo("application/problem+json");
    assertThat(response.getContentAsString()).contains("\"limit\":\"api\"", "\"retryAfter\":1",
        "too many decisions are waiting for its store");
  }

  @Configuration(proxyBeanMethods = false)
  static class ManualClockConfig {
    @Bean
    ManualClock clock() {
      return new ManualClock(1_767_225_600_000L);
    }
  }

  @Test
  void badCounts_logOneLinePerLimitAndMinute() {
    ManualClock clock = new ManualClock(1_767_225_600_000L);
    BadCountAnswer answer = new BadCountAnswer(clock);
    assertThat(answer.shouldLog("api")).isTrue();
    assertThat(answer.shouldLog("api")).isFalse();
    assertThat(answer.shouldLog("other")).isTrue();
    clock.advanceMillis(BadCountAnswer.LOG_INTERVAL_MILLIS - 1);
    assertThat(answer.shouldLog("api")).isFalse();
    clock.advanceMillis(1);
    assertThat(answer.shouldLog("api")).isTrue();
    assertThat(answer.shouldLog("api")).isFalse();
  }
}

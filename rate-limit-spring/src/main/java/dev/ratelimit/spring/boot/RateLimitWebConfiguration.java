package dev.ratelimit.spring.boot;

import dev.ratelimit.limiter.Decisions;
import dev.ratelimit.limiter.NamedLimiter;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.servlet.ClientAddress;
import dev.ratelimit.servlet.KeyResolver;
import dev.ratelimit.http.builder.MissingKey;
import dev.ratelimit.servlet.RateLimitFilter;
import dev.ratelimit.servlet.RateLimitResponses;
import jakarta.servlet.http.HttpServletResponse;
import java.util.List;
import java.util.function.Predicate;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.http.server.PathContainer;
import org.springframework.util.ClassUtils;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * Rate limiting over HTTP in a servlet web application (docs/design.md §6–7): the filter for
 * {@code ratelimit.filter.rules}, the 429 for {@link RateLimitExceededException} thrown by
 * {@code @RateLimited} methods, and the rate limit headers on their admitted calls.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({RateLimitFilter.class, FilterRegistrationBean.class})
class RateLimitWebConfiguration {

  @Bean
  @ConditionalOnMissingBean
  RateLimitResponses rateLimitResponses(RateLimiter limiter, RateLimitProperties properties) {
    try {
      return new RateLimitResponses(limiter, properties.getHeaders());
    } catch (IllegalArgumentException e) {
      throw new InvalidLimitConfigurationException("ratelimit.headers=" + properties.getHeaders() + ": " + e.getMessage(), e);
    }
  }

  /** The headers of an annotated method's decision, on the response of the request it runs in. */
  @Bean
  @ConditionalOnMissingBean
  dev.ratelimit.spring.ResponseHeaders rateLimitResponseHeaders(RateLimitResponses responses) {
    return (List<NamedLimiter.Call> calls, Decisions decisions) -> {
      if (RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes attributes) {
        HttpServletResponse response = attributes.getResponse();
        if (response != null && !response.isCommitted()) {
          responses.headers(response, calls.stream().map(NamedLimiter.Call::limit).toList(), decisions);
        }
      }
    };
  }

  /** The filter, registered when there are rules. */
  @Bean
  @ConditionalOnProperty(name = "ratelimit.filter.rules[0].path")
  @ConditionalOnMissingBean(name = "rateLimitFilter")
  FilterRegistrationBean<RateLimitFilter> rateLimitFilter(RateLimiter limiter, RateLimitProperties properties,
      BeanFactory beanFactory, Environment environment) {
    RateLimitFilter filter = FilterRules.build(properties, beanFactory, new ServletTarget(limiter,
        properties.getFilter().getMissingKey(), beanFactory));
    FilterRegistrationBean<RateLimitFilter> registration = new FilterRegistrationBean<>(filter);
    registration.setName("rateLimitFilter");
    registration.setOrder(filterOrder(properties, environment, beanFactory instanceof ConfigurableBeanFactory configurable
        ? configurable.getBeanClassLoader() : RateLimitWebConfiguration.class.getClassLoader()));
    return registration;
  }

  /**
   * {@code ratelimit.*} onto the servlet filter's builder; rule expressions see {@code #request},
   * {@code #principal}, {@code #authorities} and {@code #clientAddress}.
   */
  private static final class ServletTarget extends FilterRules.BuilderTarget<RateLimitFilter.Builder, RateLimitFilter> {
    private final RateLimiter limiter;
    private final BeanFactory beanFactory;
    private ClientAddress clients;

    ServletTarget(RateLimiter limiter, MissingKey missingKey, BeanFactory beanFactory) {
      super(SpelKeyResolver.VARIABLES, RateLimitFilter.builder().limiter(limiter).missingKey(missingKey));
      this.limiter = limiter;
      this.beanFactory = beanFactory;
    }

    @Override
    protected RateLimitFilter.Builder fresh() {
      return RateLimitFilter.builder().limiter(limiter);
    }

    /** Spring path patterns, SpEL keys, and expressions over the servlet request. */
    @Override
    protected void add(RateLimitFilter.Builder builder, FilterRules.FilterRule rule) {
      PathPattern pattern = PathPatternParser.defaultInstance.parse(rule.path());
      Predicate<String> matches = path -> pattern.matches(PathContainer.parsePath(path));
      ClientAddress clients = clients();
      if (SpelKeyResolver.isSpel(rule.key())) {
        builder.rule(rule.path(), matches, rule.limit(),
            (KeyResolver) SpelKeyResolver.parse(rule.key(), beanFactory, clients), rule.cost());
      } else {
        builder.rule(rule.path(), matches, rule.limit(), rule.key(), rule.cost());
      }
      RequestExpression plan = rule.plan();
      if (plan != null) {
        builder.plan(request -> plan.plan(SpelKeyResolver.variables(request, clients)));
      }
      RequestExpression condition = rule.condition();
      if (condition != null) {
        builder.condition(request -> condition.applies(SpelKeyResolver.variables(request, clients)));
      }
    }

    /** The client as the filter's {@code ip} key finds it, from the settings (given before the rules). */
    private ClientAddress clients() {
      if (clients == null) {
        FilterRules.ClientSettings settings = clientSettings();
        clients = ClientAddress.trusting(settings.trustedProxies(), settings.forwardedHeader(),
            settings.trustAllProxies());
      }
      return clients;
    }
  }

  /**
   * {@code ratelimit.filter.order}, else just after Spring Security's filter chain when Spring
   * Security is there, so that {@code key: principal} sees the authenticated user (before it, every
   * user would share the missing key's bucket); else before every other filter, so that a denied
   * request costs nothing more.
   */
  static int filterOrder(RateLimitProperties properties, Environment environment, ClassLoader classLoader) {
    if (properties.getFilter().getOrder() != null) {
      return properties.getFilter().getOrder();
    }
    if (ClassUtils.isPresent(SECURITY_FILTER_CHAIN, classLoader)) {
      return environment.getProperty("spring.security.filter.order", Integer.class, SECURITY_FILTER_ORDER) + 1;
    }
    return Ordered.HIGHEST_PRECEDENCE + 100;
  }

  private static final String SECURITY_FILTER_CHAIN = "org.springframework.security.web.SecurityFilterChain";
  /** Spring Boot's default order of Spring Security's filter chain (SecurityFilterProperties.DEFAULT_FILTER_ORDER). */
  static final int SECURITY_FILTER_ORDER = -100;

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
  static class Mvc {

    @Bean
    @ConditionalOnMissingBean
    RateLimitExceptionResolver rateLimitExceptionResolver(RateLimitResponses responses, RateLimiter limiter) {
      return new RateLimitExceptionResolver(responses, limiter.clock());
    }
  }
}

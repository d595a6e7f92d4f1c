package dev.ratelimit.moduletests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.bucket4j.Bucket4jStore;
import dev.ratelimit.gateway.RateLimitGatewayFilterFactory;
import dev.ratelimit.http.builder.FilterBuilder;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.redis.RedisStore;
import dev.ratelimit.servlet.RateLimitFilter;
import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.boot3.RateLimitBoot3AutoConfiguration;
import dev.ratelimit.webflux.RateLimitWebFilter;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * Runs inside the named module {@code dev.ratelimit.moduletests}, every library module on the
 * module path: what an application module sees of them.
 */
class ModulePathTest {
  private static final Module USER = ModulePathTest.class.getModule();

  @Test
  void suite_runsAsNamedModules() {
    assertThat(USER.getName()).isEqualTo("dev.ratelimit.moduletests");
    assertThat(List.of(RateLimiter.class, FilterBuilder.class, RateLimitFilter.class, RedisStore.class,
        Bucket4jStore.class, RateLimited.class, RateLimitBoot3AutoConfiguration.class, RateLimitWebFilter.class,
        RateLimitGatewayFilterFactory.class))
        .extracting(type -> type.getModule().getName())
        .containsExactly("dev.ratelimit.core", "dev.ratelimit.http", "dev.ratelimit.servlet", "dev.ratelimit.redis",
            "dev.ratelimit.bucket4j", "dev.ratelimit.spring", "dev.ratelimit.spring.boot3", "dev.ratelimit.webflux",
            "dev.ratelimit.gateway");
  }

  @Test
  void limiter_decidesOnEachStore() {
    for (RateLimiter limiter : List.of(ModuleUser.inMemoryLimiter(), ModuleUser.limiter(ModuleUser.bucket4jStore()))) {
      assertThat(limiter.named("api").limit("alice").allowed()).isTrue();
      assertThat(limiter.named("api").limit("alice").allowed()).isTrue();
      assertThat(limiter.named("api").limit("alice").allowed()).isFalse();
    }
  }

  @Test
  void frontEnds_buildFromTheirExportedBuilders() {
    RateLimiter limiter = ModuleUser.inMemoryLimiter();
    assertThat(ModuleUser.servletFilter(limiter)).isNotNull();
    assertThat(ModuleUser.webFilter(limiter)).isNotNull();
    assertThat(ModuleUser.gatewayFilter(limiter)).isNotNull();
    assertThat(ModuleUser.redisStore()).isNotNull();
  }

  @Test
  void rateLimitedMethod_isAdvisedBySpringOnTheModulePath() {
    try (var context = new AnnotationConfigApplicationContext(SpringApp.class)) {
      LimitedService service = context.getBean(LimitedService.class);
      assertThat(service.greet("alice")).isEqualTo("hello alice");
      assertThat(service.greet("alice")).isEqualTo("hello alice");
      assertThatThrownBy(() -> service.greet("alice")).isInstanceOf(RateLimitExceededException.class);
      assertThat(service.greet("bob")).isEqualTo("hello bob");
    }
  }

  @Test
  void bootFindsEachModulesAutoConfigurationAndFactories() throws IOException {
    ClassLoader loader = ModulePathTest.class.getClassLoader();
    assertThat(ImportCandidates.load(AutoConfiguration.class, loader).getCandidates()).contains(
        "dev.ratelimit.spring.boot.RateLimitAutoConfiguration", "dev.ratelimit.spring.boot.RateLimitMetricsAutoConfiguration",
        "dev.ratelimit.spring.boot3.RateLimitBoot3AutoConfiguration",
        "dev.ratelimit.webflux.boot.RateLimitWebFluxAutoConfiguration",
        "dev.ratelimit.gateway.RateLimitGatewayAutoConfiguration");
    // spring.factories is read the same way (ClassLoader.getResources): META-INF is no package,
    // so a named module does not hide it
    List<String> factories = new ArrayList<>();
    for (URL url : Collections.list(loader.getResources(SpringFactoriesLoader.FACTORIES_RESOURCE_LOCATION))) {
      try (InputStream in = url.openStream()) {
        factories.add(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
    }
    assertThat(factories).anySatisfy(text -> assertThat(text)
        .contains(FailureAnalyzer.class.getName() + "=dev.ratelimit.spring.boot.RateLimitFailureAnalyzer"));
  }

  @Test
  void internalPackages_areNotExportedToApplications() {
    Module core = RateLimiter.class.getModule();
    Module http = FilterBuilder.class.getModule();
    assertThat(core.getPackages()).contains("dev.ratelimit.internal", "dev.ratelimit.algorithm", "dev.ratelimit.trace");
    for (String internal : Set.of("dev.ratelimit.internal", "dev.ratelimit.algorithm", "dev.ratelimit.trace")) {
      assertThat(core.isExported(internal, USER)).as(internal).isFalse();
      assertThat(core.isOpen(internal, USER)).as(internal).isFalse();
    }
    assertThat(http.isExported("dev.ratelimit.http", USER)).isFalse();
    assertThat(http.isExported("dev.ratelimit.http.builder", USER)).isTrue();
    assertThat(core.isExported("dev.ratelimit.internal", http)).isTrue();
    assertThat(http.isExported("dev.ratelimit.http", RateLimitWebFilter.class.getModule())).isTrue();
  }

  @Test
  void internalClass_refusesReflectionFromApplications() throws ClassNotFoundException {
    Class<?> internal = Class.forName("dev.ratelimit.internal.LongKeys", false, RateLimiter.class.getClassLoader());
    assertThat(internal.getDeclaredMethods()).isNotEmpty().allSatisfy(method -> assertThat(method.trySetAccessible()).isFalse());
  }

  @Test
  void cliModule_exportsNothing() {
    Module cli = ModuleLayer.boot().findModule("dev.ratelimit.cli").orElseThrow();
    assertThat(cli.getDescriptor().exports()).isEmpty();
  }
}

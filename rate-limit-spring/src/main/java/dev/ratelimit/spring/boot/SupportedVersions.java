package dev.ratelimit.spring.boot;

import java.util.function.Predicate;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.SpringBootVersion;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.SpringVersion;
import org.springframework.util.ClassUtils;

/**
 * Stops an application whose Spring Boot or Spring Framework is outside the lines this project
 * runs on (docs/design.md §7.5), before any bean is made: on another line some auto-configuration
 * would be silently missing (Boot 4 moved packages that Boot 3 has elsewhere) or fail on its
 * first request. {@link RateLimitFailureAnalyzer} turns the failure into a paragraph naming the
 * version found and the lines supported. An initializer (from {@code spring.factories}), not an
 * auto-configuration, so that it runs whatever Boot makes of the auto-configurations. Also says,
 * in one WARN line, when Boot 3's actuator health is there without rate-limit-spring-boot3, which
 * serves the {@code rateLimit} health component on that line.
 */
final class SupportedVersions implements ApplicationContextInitializer<ConfigurableApplicationContext> {
  static final String SUPPORTED = "Spring Boot 3.5.x and 4.x, on Spring Framework 6.2.x and 7.x";
  static final String BOOT3_HEALTH = "org.springframework.boot.actuate.health.HealthIndicator";
  static final String BOOT3_SUPPORT = "dev.ratelimit.spring.boot3.RateLimitBoot3AutoConfiguration";
  private static final Log log = LogFactory.getLog(SupportedVersions.class);

  private final String boot;
  private final String framework;
  private final Predicate<String> present;

  SupportedVersions() {
    this(SpringBootVersion.getVersion(), SpringVersion.getVersion(),
        name -> ClassUtils.isPresent(name, SupportedVersions.class.getClassLoader()));
  }

  SupportedVersions(String boot, String framework, Predicate<String> present) {
    this.boot = boot;
    this.framework = framework;
    this.present = present;
  }

  @Override
  public void initialize(ConfigurableApplicationContext context) {
    if (!context.getEnvironment().getProperty("ratelimit.enabled", Boolean.class, true)) {
      return;
    }
    check();
    String warning = missingSupport();
    if (warning != null) {
      log.warn(warning);
    }
  }

  void check() {
    if (!within(boot, 3, 5, 5)) {
      throw new UnsupportedVersionException("Spring Boot " + boot);
    }
    if (!within(framework, 6, 2, 8)) {
      throw new UnsupportedVersionException("Spring Framework " + framework);
    }
  }

  /** The WARN line for Boot 3's actuator without rate-limit-spring-boot3, or {@code null}. */
  String missingSupport() {
    if (!present.test(BOOT3_HEALTH) || present.test(BOOT3_SUPPORT)) {
      return null;
    }
    return "rate-limit: no rateLimit health component: Spring Boot " + boot + "'s actuator health needs "
        + "dev.ratelimit:rate-limit-spring-boot3 on the class path (rate-limit-spring-boot-starter and "
        + "rate-limit-gateway bring it); rate-limit supports " + SUPPORTED;
  }

  /**
   * Whether {@code major.minor} is at least {@code minMajor.minMinor} and the major below
   * {@code belowMajor}. An unknown version ({@code null}: a jar without its manifest, as some
   * repackaged applications have) passes: nothing can be said of it.
   */
  static boolean within(String version, int minMajor, int minMinor, int belowMajor) {
    if (version == null) {
      return true;
    }
    String[] parts = version.split("[.-]", 3);
    int major = number(parts[0]);
    int minor = parts.length > 1 ? number(parts[1]) : 0;
    if (major < 0 || minor < 0) {
      return true;
    }
    return major < belowMajor && (major > minMajor || major == minMajor && minor >= minMinor);
  }

  private static int number(String text) {
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** A Spring line this project does not run on. */
  static final class UnsupportedVersionException extends IllegalStateException {
    UnsupportedVersionException(String found) {
      super("rate-limit does not run on " + found + ": it supports " + SUPPORTED);
    }
  }
}

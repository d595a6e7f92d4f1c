package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/** An application on a Spring line this project does not run on stops at startup, saying which. */
@ExtendWith(OutputCaptureExtension.class)
class SupportedVersionsTest {

  @Configuration(proxyBeanMethods = false)
  static class App {}

  private static SpringApplication application(SupportedVersions versions) {
    SpringApplication application = new SpringApplication(App.class);
    application.setWebApplicationType(WebApplicationType.NONE);
    application.addInitializers(versions);
    return application;
  }

  private static SupportedVersions versions(String boot, String framework) {
    return new SupportedVersions(boot, framework, name -> false);
  }

  @Test
  void within_acceptsTheSupportedLinesOnly() {
    for (String supported : new String[] {"3.5.0", "3.5.7", "3.6.0", "4.0.7", "4.1.2", "4.1.0-SNAPSHOT", "4.2.0-M1"}) {
      assertThat(SupportedVersions.within(supported, 3, 5, 5)).as(supported).isTrue();
    }
    for (String unsupported : new String[] {"3.4.10", "3.0.0", "2.7.18", "5.0.0", "5.1.0-M2", "10.0.0"}) {
      assertThat(SupportedVersions.within(unsupported, 3, 5, 5)).as(unsupported).isFalse();
    }
    assertThat(SupportedVersions.within("6.1.21", 6, 2, 8)).isFalse();
    assertThat(SupportedVersions.within("8.0.0", 6, 2, 8)).isFalse();
    assertThat(SupportedVersions.within("6.2.12", 6, 2, 8)).isTrue();
    assertThat(SupportedVersions.within("7.0.8", 6, 2, 8)).isTrue();
    assertThat(SupportedVersions.within(null, 3, 5, 5)).as("no manifest: nothing to say").isTrue();
    assertThat(SupportedVersions.within("develop", 3, 5, 5)).as("not a version: nothing to say").isTrue();
  }

  @Test
  void anOldBoot_stopsTheApplication_namingTheVersionFoundAndTheLinesSupported(CapturedOutput output) {
    assertThatThrownBy(() -> application(versions("3.4.10", "6.2.12")).run().close())
        .isInstanceOf(SupportedVersions.UnsupportedVersionException.class);
    assertThat(output).contains("APPLICATION FAILED TO START")
        .contains("rate-limit does not run on Spring Boot 3.4.10: it supports Spring Boot 3.5.x and 4.x, "
            + "on Spring Framework 6.2.x and 7.x.")
        .contains("Move the application to a supported line (Spring Boot 3.5 or later)");
  }

  @Test
  void aFrameworkOutsideTheLines_stopsTheApplication(CapturedOutput output) {
    assertThatThrownBy(() -> application(versions("4.0.7", "8.0.0")).run().close())
        .isInstanceOf(SupportedVersions.UnsupportedVersionException.class);
    assertThat(output).contains("rate-limit does not run on Spring Framework 8.0.0");
  }

  @Test
  void aNewMajorOfBoot_stopsTheApplicationToo() {
    assertThatThrownBy(() -> versions("5.0.0", "7.0.8").check())
        .hasMessage("rate-limit does not run on Spring Boot 5.0.0: it supports Spring Boot 3.5.x and 4.x, "
            + "on Spring Framework 6.2.x and 7.x");
  }

  @Test
  void rateLimitingTurnedOff_startsWhateverTheVersions() {
    try (ConfigurableApplicationContext context =
        application(versions("3.4.10", "6.1.21")).run("--ratelimit.enabled=false")) {
      assertThat(context.isActive()).isTrue();
    }
  }

  @Test
  void theCheck_isRegisteredForEveryApplication_andPassesOnThisLine() {
    SpringApplication application = new SpringApplication(App.class);
    assertThat(application.getInitializers()).anyMatch(SupportedVersions.class::isInstance);
    new SupportedVersions().check();
  }

  @Test
  void boot3ActuatorWithoutItsHealthSupport_isOneWarning_namingWhatIsMissing() {
    Set<String> boot3Actuator = Set.of(SupportedVersions.BOOT3_HEALTH);
    assertThat(new SupportedVersions("3.5.7", "6.2.12", boot3Actuator::contains).missingSupport())
        .isEqualTo("rate-limit: no rateLimit health component: Spring Boot 3.5.7's actuator health needs "
            + "dev.ratelimit:rate-limit-spring-boot3 on the class path (rate-limit-spring-boot-starter and "
            + "rate-limit-gateway bring it); rate-limit supports Spring Boot 3.5.x and 4.x, on Spring Framework "
            + "6.2.x and 7.x");
    Set<String> withSupport = Set.of(SupportedVersions.BOOT3_HEALTH, SupportedVersions.BOOT3_SUPPORT);
    assertThat(new SupportedVersions("3.5.7", "6.2.12", withSupport::contains).missingSupport()).isNull();
    assertThat(new SupportedVersions("4.0.7", "7.0.8", name -> false).missingSupport()).as("Boot 4").isNull();
  }
}

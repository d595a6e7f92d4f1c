package dev.ratelimit.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RateLimitExceededException;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

/**
 * Spring's AOT processing of an application with {@code @RateLimited} beans records what a native
 * image needs to run them: the annotated methods and their fallbacks for reflection, the Redis
 * store's scripts as resources. Nothing is recorded for a bean without the annotation.
 */
class RateLimitRuntimeHintsTest {

  public static class Exports {
    @RateLimited(name = "exports", key = "#user", fallback = "later")
    public String export(String user) {
      return "exported for " + user;
    }

    String later(String user, RateLimitExceededException e) {
      return "later for " + user;
    }
  }

  /** Class-level: every public method is limited, inherited ones too. */
  @RateLimited(name = "reports")
  public static class Reports extends Base {}

  public static class Base {
    public String daily() {
      return "daily";
    }
  }

  public static class Unlimited {
    public String free() {
      return "free";
    }
  }

  private static RuntimeHints processed(Class<?>... beans) {
    GenericApplicationContext context = new GenericApplicationContext();
    for (Class<?> bean : beans) {
      context.registerBean(bean);
    }
    DefaultGenerationContext generation = new DefaultGenerationContext(
        new ClassNameGenerator(ClassName.get(RateLimitRuntimeHintsTest.class)), new InMemoryGeneratedFiles());
    new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
    return generation.getRuntimeHints();
  }

  @Test
  void annotatedMethodsAndTheirFallbacks_areRegisteredForReflection() {
    RuntimeHints hints = processed(Exports.class, Reports.class, Unlimited.class);
    assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Exports.class, "export")).accepts(hints);
    assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Exports.class, "later")).accepts(hints);
    assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Base.class, "daily")).accepts(hints);
    assertThat(RuntimeHintsPredicates.reflection().onType(RateLimited.class)).accepts(hints);
    assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Unlimited.class, "free")).rejects(hints);
  }

  @Test
  void theRedisScripts_areRegisteredAsResources() {
    RuntimeHints hints = processed(Unlimited.class);
    assertThat(RuntimeHintsPredicates.resource().forResource("dev/ratelimit/redis/rules.lua")).accepts(hints);
    assertThat(RuntimeHintsPredicates.resource().forResource("dev/ratelimit/redis/token-bucket.lua")).accepts(hints);
  }
}

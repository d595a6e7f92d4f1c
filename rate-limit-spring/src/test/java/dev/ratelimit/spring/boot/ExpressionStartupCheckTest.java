package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.spring.RateLimited;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** A key or count naming a variable that will not exist stops startup, with a message saying what exists. */
class ExpressionStartupCheckTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
      .withPropertyValues("ratelimit.limits.send=10/1m");

  public static class MisspelledKey {
    @RateLimited(name = "send", key = "#usr")
    public String send(String user, String text) {
      return user + text;
    }
  }

  public static class UnknownCountVariable {
    @RateLimited(name = "send", key = "#user", count = "#size * 2")
    public String send(String user, String text) {
      return user + text;
    }
  }

  public static class IndexPastTheParameters {
    @RateLimited(name = "send", key = "#p2")
    public String send(String user, String text) {
      return user + text;
    }
  }

  public static class GoodExpressions {
    @RateLimited(name = "send", key = "#user + ':' + #p1 + #a0 + (#principal ?: '') + (#request == null)",
        count = "#text.length() > 0 ? 1 : 0")
    public String send(String user, String text) {
      return user + text;
    }
  }

  private FailureAnalysis startupFailure(Class<?> bean) {
    FailureAnalysis[] analysis = new FailureAnalysis[1];
    // the bean's own loader, so that its proxy class is defined where the bean's class is seen
    runner.withClassLoader(bean.getClassLoader()).withBean(bean).run(context -> {
      assertThat(context).hasFailed();
      analysis[0] = new RateLimitFailureAnalyzer().analyze(context.getStartupFailure());
    });
    assertThat(analysis[0]).isNotNull();
    return analysis[0];
  }

  @Test
  void keyNamingNoParameter_failsStartupNamingMethodExpressionNameAndTheNamesThatExist() {
    assertThat(startupFailure(MisspelledKey.class).getDescription())
        .contains("@RateLimited(name = \"send\", key = \"#usr\")")
        .contains(MisspelledKey.class.getName() + ".send")
        .contains("names #usr, which is neither a parameter nor a variable")
        .contains("the names that exist: #user, #text, #p0, #p1, #a0, #a1, #request, #principal");
  }

  @Test
  void countNamingNoParameter_failsStartup() {
    assertThat(startupFailure(UnknownCountVariable.class).getDescription())
        .contains("count = \"#size * 2\"").contains("names #size").contains("#user, #text");
  }

  @Test
  void indexPastTheParameters_failsStartup() {
    assertThat(startupFailure(IndexPastTheParameters.class).getDescription())
        .contains("key = \"#p2\"").contains("names #p2").contains("#p0, #p1");
  }

  @Test
  void namesThatExist_start() {
    runner.withBean(GoodExpressions.class).run(context -> assertThat(context).hasNotFailed());
  }

  /** The real thing: a class compiled here without -parameters, so its class file has no names. */
  @Test
  void parameterNameInClassCompiledWithoutParameters_failsStartupSayingToCompileWithParametersOrUsePositions(
      @TempDir Path dir) throws Exception {
    Class<?> withoutNames = compileWithoutParameters(dir, "WithoutNames", "#user");
    assertThat(withoutNames.getMethod("send", String.class).getParameters()[0].isNamePresent()).isFalse();
    String description = startupFailure(withoutNames).getDescription();
    assertThat(description).contains("key = \"#user\"").contains("WithoutNames.send")
        .contains("names #user, but the parameter names of").contains("compile with -parameters")
        .contains("or use #p0").contains("the names that exist: #p0, #a0, #request, #principal");

    Class<?> byPosition = compileWithoutParameters(dir, "ByPosition", "#p0");
    runner.withClassLoader(byPosition.getClassLoader()).withBean(byPosition)
        .run(context -> assertThat(context).hasNotFailed());
  }

  private static Class<?> compileWithoutParameters(Path dir, String name, String key) throws IOException,
      ClassNotFoundException {
    Path source = dir.resolve("compiled/" + name + ".java");
    Files.createDirectories(source.getParent());
    Files.writeString(source, "package compiled;\n"
        + "public class " + name + " {\n"
        + "  @dev.ratelimit.spring.RateLimited(name = \"send\", key = \"" + key + "\")\n"
        + "  public String send(String user) { return user; }\n"
        + "}\n");
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    String annotations = Path.of(RateLimited.class.getProtectionDomain().getCodeSource().getLocation().getPath())
        .toString();
    int status = javac.run(null, null, null, List.of("--release", "17", "-classpath", annotations, "-d",
        dir.toString(), source.toString()).toArray(String[]::new));
    assertThat(status).isZero();
    URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()},
        ExpressionStartupCheckTest.class.getClassLoader());
    return loader.loadClass("compiled." + name);
  }
}

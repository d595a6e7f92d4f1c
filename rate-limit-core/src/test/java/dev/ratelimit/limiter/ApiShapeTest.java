package dev.ratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The public API's shape: no method takes two strings that could be swapped and still compile
 * (a limit's name, a plan and a key are given in separate steps), and the exported surface stays
 * small.
 */
class ApiShapeTest {
  /** Core's unqualified exports hold at most this many public top-level types. */
  private static final int MAX_EXPORTED_TYPES = 24;

  @Test
  void noPublicMethodOfTheLimiters_takesTwoStrings() {
    List<String> swappable = new ArrayList<>();
    for (Class<?> type : List.of(RateLimiter.class, NamedLimiter.class, NamedLimiter.Call.class)) {
      Stream.concat(Arrays.stream(type.getMethods()), Arrays.stream(type.getConstructors()))
          .filter(member -> member.getDeclaringClass() != Object.class)
          .filter(member -> Arrays.stream(member.getParameterTypes()).filter(String.class::equals).count() > 1)
          .forEach(member -> swappable.add(member.toString()));
    }
    assertThat(swappable).isEmpty();
  }

  /**
   * The builder names a plan in a step of its own ({@code onPlan(plan).limit(name, spec)}); where
   * a method takes a name and a spec, the two can't be swapped unnoticed: a name never parses as
   * a spec, and a spec is never a valid name.
   */
  @Test
  void theBuilder_neverTakesThreeStrings_andANameSwappedWithItsSpecIsRefusedAtOnce() {
    List<String> swappable = new ArrayList<>();
    for (Class<?> type : List.of(RateLimiter.Builder.class, RateLimiter.Builder.OnPlan.class)) {
      Arrays.stream(type.getMethods()).filter(method -> method.getDeclaringClass() != Object.class)
          .filter(method -> Arrays.stream(method.getParameterTypes()).filter(String.class::equals).count() > 2)
          .forEach(method -> swappable.add(method.toString()));
    }
    assertThat(swappable).isEmpty();
    assertThatThrownBy(() -> RateLimiter.builder().limit("token-bucket rate=5 period=1h", "api"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("invalid limit name");
    assertThatThrownBy(() -> RateLimiter.builder().onPlan("pro").limit("10/1m", "api"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("invalid limit name");
  }

  @Test
  void callsOfAnAllOrNothingCall_haveNoPublicConstructor() {
    Constructor<?>[] constructors = NamedLimiter.Call.class.getConstructors();
    assertThat(constructors).isEmpty();
    assertThat(NamedLimiter.class.getConstructors()).isEmpty();
    assertThat(Modifier.isFinal(NamedLimiter.Call.class.getModifiers())).isTrue();
    assertThat(NamedLimiter.Call.class.isRecord()).as("a record's canonical constructor is public").isFalse();
  }

  @Test
  void everyOperationOnANamedLimit_isOnNamedLimiter_notOnRateLimiter() {
    List<String> byName = new ArrayList<>();
    for (Method method : RateLimiter.class.getMethods()) {
      Class<?>[] params = method.getParameterTypes();
      if (method.getDeclaringClass() == RateLimiter.class && params.length > 0 && params[0] == String.class
          && !method.getName().equals("named")) {
        byName.add(method.toString());
      }
    }
    assertThat(byName).isEmpty();
  }

  @Test
  void coresUnqualifiedExports_holdAtMost24PublicTopLevelTypes() throws IOException, ClassNotFoundException {
    Path sources = Path.of("src/main/java");
    String moduleInfo = Files.readString(sources.resolve("module-info.java"));
    Matcher export = Pattern.compile("(?m)^\\s*exports\\s+([\\w.]+)\\s*;").matcher(moduleInfo);
    List<String> exported = new ArrayList<>();
    List<String> types = new ArrayList<>();
    while (export.find()) {
      String pkg = export.group(1);
      exported.add(pkg);
      try (Stream<Path> files = Files.list(sources.resolve(pkg.replace('.', '/')))) {
        for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
          String simple = file.getFileName().toString().replace(".java", "");
          if (simple.equals("package-info")) {
            continue;
          }
          Class<?> type = Class.forName(pkg + "." + simple);
          if (Modifier.isPublic(type.getModifiers())) {
            types.add(type.getName());
          }
        }
      }
    }
    assertThat(exported).as("module-info's unqualified exports")
        .containsExactlyInAnyOrder("dev.ratelimit", "dev.ratelimit.store", "dev.ratelimit.limiter");
    assertThat(types).as("public top-level types exported to everyone").hasSizeLessThanOrEqualTo(MAX_EXPORTED_TYPES);
  }
}

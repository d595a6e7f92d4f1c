package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The ARGV layout is written by Java and read by Lua from one description; no Redis needed. */
class ScriptArgumentsTest {
  private static final String LIMIT = ScriptArguments.limit("gcra", "fp", new String[] {"a", "b", "c", "d", "e"}, true);

  /** The ARG_ constants as the scripts see them, Lua's 1-based positions turned to Java's. */
  private static Map<String, Integer> luaConstants() {
    Map<String, Integer> constants = new HashMap<>();
    Matcher line = Pattern.compile("local ([A-Z_, ]+) = ([0-9, ]+)").matcher(ScriptArguments.lua());
    while (line.find()) {
      String[] names = line.group(1).split(", ");
      String[] values = line.group(2).split(", ");
      for (int i = 0; i < names.length; i++) {
        constants.put(names[i], Integer.parseInt(values[i].trim()));
      }
    }
    return constants;
  }

  @Test
  void batch_putsTheRequestsAfterTheLimitAndNoClockWhenRedisTimeIsUsed() {
    String[] args = ScriptArguments.batch("", false, LIMIT, 2);
    Map<String, Integer> lua = luaConstants();
    assertThat(args[lua.get("ARG_BATCH_LIMIT") - 1]).isEqualTo("gcra fp a b c d e 1");
    assertThat(lua.get("ARG_PARAMETERS")).isEqualTo(ScriptArguments.PARAMETERS);
    assertThat(ScriptArguments.requestsOf(0)).isEqualTo(lua.get("ARG_BATCH_REQUESTS") - 1);
    assertThat(args).hasSize(ScriptArguments.requestsOf(1) + 1);
  }

  @Test
  void batch_putsTheCallersClockLastWithKeep() {
    String[] args = ScriptArguments.batch("123", true, LIMIT, 2);
    // main-batch reads it at ARG_BATCH_REQUESTS + #KEYS (1-based)
    assertThat(args).hasSize(luaConstants().get("ARG_BATCH_REQUESTS") - 1 + 2 + 1);
    assertThat(args[args.length - 1]).isEqualTo("123 1");
    assertThat(ScriptArguments.batch("", true, LIMIT, 1)).hasSize(3).endsWith(" 1");
    assertThat(ScriptArguments.batch("-5", false, LIMIT, 1)).hasSize(3).endsWith("-5 0");
  }

  @Test
  void all_writesEachChargeAtItsStrideWithItsOffsetAndCount() {
    String[] args = ScriptArguments.all("", false, 2);
    ScriptArguments.charge(args, 0, LIMIT, null, "1");
    ScriptArguments.charge(args, 1, LIMIT, "777", "2.5");
    Map<String, Integer> lua = luaConstants();
    int stride = lua.get("ARG_ALL_STRIDE");
    int first = lua.get("ARG_ALL_FIRST") - 1;
    int second = first + stride;
    assertThat(args).hasSize(second + stride);
    assertThat(Arrays.asList(args).subList(first, second)).containsExactly(LIMIT, "-", "1");
    assertThat(Arrays.asList(args).subList(second, second + stride)).containsExactly(LIMIT, "777", "2.5");
  }

  @Test
  void all_putsTheCallersClockAfterTheLastCharge() {
    String[] args = ScriptArguments.all("1767225600000", true, 2);
    ScriptArguments.charge(args, 0, LIMIT, null, "1");
    ScriptArguments.charge(args, 1, LIMIT, null, "1");
    Map<String, Integer> lua = luaConstants();
    // main-all reads it at ARG_ALL_FIRST + ARG_ALL_STRIDE * #KEYS (1-based)
    assertThat(args).hasSize(lua.get("ARG_ALL_FIRST") - 1 + lua.get("ARG_ALL_STRIDE") * 2 + 1);
    assertThat(args[args.length - 1]).isEqualTo("1767225600000 1");
  }

  @Test
  void limit_rejectsAnotherNumberOfParameters() {
    assertThatThrownBy(() -> ScriptArguments.limit("quota", "fp", new String[] {"1", "2"}, false))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("5 script parameters, not 2");
  }

  @Test
  void scripts_readArgvOnlyThroughTheLayout() {
    for (Script script : List.of(Script.forKind("token-bucket"), Script.LIMIT_ALL)) {
      assertThat(script.source()).startsWith("-- rate-limit: ").contains(ScriptArguments.lua())
          .doesNotContainPattern("ARGV\\[\\d");
    }
  }
}

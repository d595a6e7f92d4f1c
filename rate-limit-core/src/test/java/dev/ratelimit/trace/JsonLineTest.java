package dev.ratelimit.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** One JSON line: its top-level fields kept as written, nested values checked without recursion. */
class JsonLineTest {

  @Test
  void nestedValues_areKeptAsWritten() {
    assertThat(JsonLine.parse("{\"t\": 1, \"a\": {\"b\": [1, {\"c\": null}, []], \"d\": \"x\"} , \"e\": [ ]}"))
        .containsExactly(Map.entry("t", "1"), Map.entry("a", "{\"b\": [1, {\"c\": null}, []], \"d\": \"x\"}"),
            Map.entry("e", "[ ]"));
  }

  @Test
  void badNestedValues_sayWhereAndWhy() {
    assertThatThrownBy(() -> JsonLine.parse("{\"a\": [1 2]}")).hasMessage("bad JSON at column 11: expected ',' or ']'");
    assertThatThrownBy(() -> JsonLine.parse("{\"a\": {\"b\" 1}}")).hasMessage("bad JSON at column 12: expected ':'");
    assertThatThrownBy(() -> JsonLine.parse("{\"a\": [1, {\"b\": 2]}")).hasMessage("bad JSON at column 19: expected ',' or '}'");
    assertThatThrownBy(() -> JsonLine.parse("{\"a\": [[[")).hasMessage("bad JSON at column 10: unexpected end of line");
  }

  @Test
  void nestingUpToTheBound_isRead_evenOnASmallStack() throws Exception {
    String deepest = "[".repeat(JsonLine.MAX_DEPTH) + "]".repeat(JsonLine.MAX_DEPTH);
    String objects = "{\"a\":".repeat(JsonLine.MAX_DEPTH) + "1" + "}".repeat(JsonLine.MAX_DEPTH);
    AtomicReference<Object> result = new AtomicReference<>();
    Thread small = new Thread(null, () -> {
      try {
        result.set(Map.of("arrays", JsonLine.parse("{\"v\": " + deepest + "}").get("v"),
            "objects", JsonLine.parse("{\"v\": " + objects + "}").get("v")));
      } catch (Throwable e) {
        result.set(e);
      }
    }, "small-stack", 64 * 1024);
    small.start();
    small.join();
    assertThat(result.get()).isEqualTo(Map.of("arrays", deepest, "objects", objects));
  }

  @Test
  void nestingPastTheBound_isRefusedAtTheBracketPastIt() {
    String tooDeep = "{\"v\": " + "[".repeat(JsonLine.MAX_DEPTH + 1) + "]".repeat(JsonLine.MAX_DEPTH + 1) + "}";
    assertThatThrownBy(() -> JsonLine.parse(tooDeep)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bad JSON at column " + (7 + JsonLine.MAX_DEPTH) + ": a value nested deeper than 1000 levels");
  }

  @Test
  void twoHundredThousandLevels_areOneErrorNotAStackOverflow() {
    String hostile = "{\"t\": 0, \"v\": " + "[{\"a\":".repeat(100_000) + "1" + "}]".repeat(100_000) + "}";
    assertThat(hostile.length()).isGreaterThan(700_000);
    assertThatThrownBy(() -> JsonLine.parse(hostile)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith(": a value nested deeper than 1000 levels");
  }
}

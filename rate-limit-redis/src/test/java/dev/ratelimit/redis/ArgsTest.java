package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.Decision;
import java.util.List;
import org.junit.jupiter.api.Test;

class ArgsTest {

  @Test
  void number_writesWholeNumbersAsIntegersAndOthersExactly() {
    assertThat(Args.number(125)).isEqualTo("125");
    assertThat(Args.number(1_767_225_600_000L)).isEqualTo("1767225600000");
    assertThat(Args.number(0.1)).isEqualTo("0.1");
    assertThat(Args.number(1e-4)).isEqualTo("1.0E-4"); // Lua's tonumber (strtod) reads it
    assertThat(Double.parseDouble(Args.number(0.1 + 0.2))).isEqualTo(0.1 + 0.2);
    assertThat(Args.number(1e300)).isEqualTo("1.0E300");
  }

  @Test
  void number_refusesWhatLuaCannotRead() {
    assertThatThrownBy(() -> Args.number(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Args.number(Double.POSITIVE_INFINITY)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void millis_writesNoBoundForLongMaxValue() {
    assertThat(Args.millis(Long.MAX_VALUE)).isEqualTo(Args.NO_BOUND);
    assertThat(Args.millis(2000)).isEqualTo("2000");
  }

  @Test
  void decision_readsWhatTheScriptsWrite() {
    assertThat(Args.decision("1 0.30000000000000004 0 125", 5)).isEqualTo(new Decision(true, 0.30000000000000004, 5, 0, 125));
    assertThat(Args.decision("0 -2 16 250", 5)).isEqualTo(new Decision(false, -2, 5, 16, 250));
    assertThat(Args.decision("0 4.9999999999999996e-10 2305843009213693952 1", 5))
        .isEqualTo(new Decision(false, 4.9999999999999996e-10, 5, 2305843009213693952L, 1));
    assertThatThrownBy(() -> Args.decision("1 2", 5)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'1 2'");
  }

  @Test
  void reply_takesOneStringPerRequest() {
    List<Object> reply = List.of("1 3 0 10", "0 0 5 10");
    assertThat(Args.reply(reply, 1)).isEqualTo("0 0 5 10");
    assertThatThrownBy(() -> Args.reply(reply, 2)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("request 3");
  }
}

package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.Decision;
import java.util.ArrayList;
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
    assertThat(Args.decision(fields(1, 0.30000000000000004, 0, 125), 5))
        .isEqualTo(new Decision(true, 0.30000000000000004, 5, 0, 125));
    assertThat(Args.decision(fields(0, -2, 16, 250), 5)).isEqualTo(new Decision(false, -2, 5, 16, 250));
    assertThat(Args.decision(fields(0, 4.9999999999999996e-10, 2305843009213693952L, 1), 5))
        .isEqualTo(new Decision(false, 4.9999999999999996e-10, 5, 2305843009213693952L, 1));
    assertThatThrownBy(() -> Args.decision(List.of(1L, 2L), 5)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("[1, 2]");
  }

  @Test
  void remaining_readsEveryDoubleExactly_asLuaFrexpSplitsIt() {
    double[] values = {0.1, 1e-300, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE, -1e9 + 0.5,
        999999998.99999988, 0x1p52 + 1, -3153599996846.3999, 1};
    for (double value : values) {
      List<Object> f = fields(1, value, 0, 0);
      assertThat(Args.remaining((Long) f.get(1), (Long) f.get(2))).as("%s", value).isEqualTo(value);
    }
    assertThat(Args.remaining(0, 0)).isEqualTo(0.0);
    assertThat(Double.doubleToRawLongBits(Args.remaining(0, 1))).isEqualTo(Double.doubleToRawLongBits(-0.0));
  }

  @Test
  void remaining_refusesWhatNoScriptWrites() {
    assertThatThrownBy(() -> Args.remaining(1L << 53, 1)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> Args.remaining(1, 5000)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> Args.remaining(1, Long.MIN_VALUE)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void reply_takesFiveIntegersPerRequest() {
    List<Object> reply = new ArrayList<>(fields(1, 3, 0, 10));
    reply.addAll(fields(0, 0, 5, 10));
    assertThat(Args.reply(reply, 1)).isEqualTo(fields(0, 0, 5, 10));
    assertThatThrownBy(() -> Args.reply(reply, 2)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("request 3");
    List<Object> text = List.of("1 3 0 10", 0L, 0L, 0L, 0L);
    assertThatThrownBy(() -> Args.reply(text, 0)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("request 1");
  }

  /** A decision as reply_into in state.lua writes it (math.frexp: mantissa in [0.5, 1) times 2^53). */
  private static List<Object> fields(long allowed, double remaining, long retryAfter, long resetAfter) {
    int exponent = remaining == 0 ? 0 : Math.getExponent(remaining) + 1;
    if (remaining != 0 && Math.getExponent(remaining) == Double.MIN_EXPONENT - 1) {
      // subnormal: frexp normalizes it
      exponent = Math.getExponent(remaining * 0x1p60) + 1 - 60;
    }
    long mantissa = (long) Math.scalb(remaining, 53 - exponent);
    return List.of(allowed, mantissa, (long) exponent, retryAfter, resetAfter);
  }
}

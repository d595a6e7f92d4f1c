package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.Decision;
import dev.ratelimit.StoreUnavailableException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
  void reply_readsWhatTheScriptsWrite() {
    assertThat(Args.reply(packed(1, 0.30000000000000004, 0, 125), 0).decision("api", 5))
        .isEqualTo(new Decision(true, 0.30000000000000004, 5, 0, 125));
    assertThat(Args.reply(packed(0, -2, 16, 250), 0).decision("api", 5)).isEqualTo(new Decision(false, -2, 5, 16, 250));
    assertThat(Args.reply(packed(0, 4.9999999999999996e-10, 2305843009213693952L, 1), 0).decision("api", 5))
        .isEqualTo(new Decision(false, 4.9999999999999996e-10, 5, 2305843009213693952L, 1));
    Args.Answer lease = Args.reply(packed(2, 7, 0, 40), 0);
    assertThat(lease.allowed()).isEqualTo(2);
    assertThat(lease.decision("api", 50)).isEqualTo(new Decision(true, 7, 50, 0, 40));
  }

  @Test
  void reply_ofAKeyInAnotherValueFormat_failsTheRequestAsAStoreFailureNamingBothVersions() {
    Args.Answer refused = Args.reply(packed(Args.OTHER_FORMAT, 2, ValueFormat.VERSION, 0), 0);
    assertThatThrownBy(() -> refused.decision("api", 5)).isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("limit 'api'").hasMessageContaining("value of format 2")
        .hasMessageContaining("this node reads format 1 only");
  }

  @Test
  void reply_readsEveryDoubleExactly() {
    double[] values = {0.1, 1e-300, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE, -1e9 + 0.5,
        999999998.99999988, 0x1p52 + 1, -3153599996846.3999, 1, -0.0, 0.0};
    for (double value : values) {
      double read = Args.reply(packed(1, value, 0, 0), 0).remaining();
      assertThat(Double.doubleToRawLongBits(read)).as("%s", value).isEqualTo(Double.doubleToRawLongBits(value));
    }
  }

  @Test
  void reply_takesTwentyFiveBytesPerRequest() {
    byte[] two = concat(packed(1, 3, 0, 10), packed(0, 0, 5, 10));
    assertThat(Args.reply(two, 1)).isEqualTo(new Args.Answer(0, 0, 5, 10));
    assertThat(Args.reply(two, 0)).isEqualTo(new Args.Answer(1, 3, 0, 10));
    assertThatThrownBy(() -> Args.reply(two, 2)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("request 3").hasMessageContaining("50 bytes");
    assertThatThrownBy(() -> Args.reply(null, 0)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("request 1");
    byte[] cut = java.util.Arrays.copyOf(packed(1, 3, 0, 10), 24);
    assertThatThrownBy(() -> Args.reply(cut, 0)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("24 bytes");
  }

  @Test
  void reply_refusesWhatNoScriptWrites() {
    assertThatThrownBy(() -> Args.reply(packed(4, 1, 0, 0), 0)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("allowed 4");
    assertThatThrownBy(() -> Args.reply(packed(-1, 1, 0, 0), 0)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> Args.reply(packed(1, Double.NaN, 0, 0), 0)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> Args.reply(packed(1, Double.POSITIVE_INFINITY, 0, 0), 0))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> Args.reply(packed(1, 1, 0.5, 0), 0)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("retryAfter 0.5");
    assertThatThrownBy(() -> Args.reply(packed(1, 1, 0, -1), 0)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("resetAfter -1");
    assertThatThrownBy(() -> Args.reply(packed(1, 1, Double.NaN, 0), 0)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> Args.reply(packed(1, 1, 0, 0x1p64), 0)).isInstanceOf(IllegalStateException.class);
  }

  /** A decision as reply_bytes in state.lua writes it: struct.pack('<Bddd', allowed, remaining, retryAfter, resetAfter). */
  private static byte[] packed(int allowed, double remaining, double retryAfter, double resetAfter) {
    return ByteBuffer.allocate(Args.DECISION_BYTES).order(ByteOrder.LITTLE_ENDIAN).put((byte) allowed)
        .putDouble(remaining).putDouble(retryAfter).putDouble(resetAfter).array();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] both = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, both, a.length, b.length);
    return both;
  }
}

package dev.ratelimit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogTextTest {
  @Test
  void quoted_escapesWhatCouldStartAForgedLine() {
    assertThat(LogText.quoted("x\n2026-01-01 WARN FORGED\r\u0085\u2028\u0000\u001b[31m"))
        .isEqualTo("\"x\\n2026-01-01 WARN FORGED\\r\\u0085\\u2028\\u0000\\u001b[31m\"")
        .doesNotContain("\n", "\r", "\u0085", "\u2028", "\u0000", "\u001b");
  }

  @Test
  void quoted_escapesQuotesAndBackslashes_soTheQuotedValueEndsWhereItSays() {
    assertThat(LogText.quoted("a\" b=\\")).isEqualTo("\"a\\\" b=\\\\\"");
  }

  @Test
  void quoted_cutsLongValues_sayingHowMuchWasLeftOut() {
    String quoted = LogText.quoted("k".repeat(5_000_000));
    assertThat(quoted).startsWith("\"" + "k".repeat(LogText.MAX_CHARS) + "\"")
        .endsWith(" (" + (5_000_000 - LogText.MAX_CHARS) + " more chars)")
        .hasSizeLessThan(LogText.MAX_CHARS + 40);
  }

  @Test
  void quoted_neverCutsACharacterInHalf() {
    String value = "a".repeat(LogText.MAX_CHARS - 1) + "\uD83D\uDE00" + "tail";
    assertThat(LogText.quoted(value)).startsWith("\"" + "a".repeat(LogText.MAX_CHARS - 1) + "\"")
        .endsWith("(6 more chars)");
  }

  @Test
  void quoted_keepsOrdinaryTextAsItIs() {
    assertThat(LogText.quoted("alice@example.com 2001:db8::/64 é")).isEqualTo("\"alice@example.com 2001:db8::/64 é\"");
    assertThat(LogText.quoted(null)).isEqualTo("null");
  }
}

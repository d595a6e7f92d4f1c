package dev.ratelimit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class LongKeysTest {
  @Test
  void longerThan_countsUtf8BytesAsGetBytesEncodes() {
    for (String text : new String[] {"a".repeat(256), "a".repeat(257), "é".repeat(128), "é".repeat(129),
        "€".repeat(85), "€".repeat(86), "\uD83D\uDE00".repeat(64), "\uD83D\uDE00".repeat(65),
        "\uD800".repeat(256), "\uD800".repeat(257), "x\uDC00".repeat(128) + "y"}) {
      int bytes = text.getBytes(StandardCharsets.UTF_8).length;
      assertThat(LongKeys.longerThan(text, 256)).as("%d bytes", bytes).isEqualTo(bytes > 256);
    }
  }

  @Test
  void sha256_isTheStandardDigest() {
    // FIPS 180-2's example
    assertThat(HexFormat.of().formatHex(LongKeys.sha256("abc")))
        .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  }
}

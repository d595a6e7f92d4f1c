package dev.ratelimit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
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

  @Test
  void bounded_keepsShortWellFormedKeys_andHashesTheRestToSeventyOneBytes() {
    assertThat(LongKeys.bounded("alice")).isEqualTo("alice");
    assertThat(LongKeys.bounded("a".repeat(256))).isEqualTo("a".repeat(256));
    String hashed = LongKeys.bounded("a".repeat(257));
    assertThat(hashed).startsWith("sha256:").hasSize(71);
    assertThat(LongKeys.bounded(hashed)).as("bounding twice changes nothing").isEqualTo(hashed);
    assertThat(LongKeys.bounded("u\uD800")).startsWith("sha256:");
    assertThat(LongKeys.bounded("\uD83D\uDE00")).as("a pair is well formed").isEqualTo("\uD83D\uDE00");
  }

  @Test
  void bounded_neverMapsLoneSurrogatesTogether_norOntoTheQuestionMarkOrAnotherCharacter() {
    String longer = "v".repeat(300);
    // U+0600 is D8 80 in UTF-8, the bytes of the lone surrogate D880 in UTF-16: an encoding
    // of surrogates as code units would collide with it
    List<String> keys = List.of("u\uD800", "u\uDFFF", "u?", "u\uFFFD", "u\u0600", "u\uD880", "u\uDC00\uD800",
        "u\uD800\uDC00", longer + "\uD800", longer + "\uDFFF", longer + "?", longer + "\uFFFD");
    assertThat(keys.stream().map(LongKeys::bounded).distinct()).hasSize(keys.size());
  }

  @Test
  void sha256_ofWellFormedText_isPlainUtf8() throws Exception {
    String text = "h\u00e9llo \u20ac \uD83D\uDE00";
    assertThat(LongKeys.sha256(text))
        .isEqualTo(java.security.MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
  }
}

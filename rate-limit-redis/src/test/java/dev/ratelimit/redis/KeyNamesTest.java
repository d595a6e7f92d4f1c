package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

class KeyNamesTest {
  private final KeyNames names = new KeyNames("ratelimit");

  @Test
  void of_putsNameAndKeyInOneHashTag() {
    assertThat(names.of("api", "user-1")).isEqualTo("ratelimit:{api:user-1}");
    assertThat(names.of("api", "")).as("the global key").isEqualTo("ratelimit:{api:}");
    assertThat(SlotHash.getSlot(names.of("api", "user-1"))).isEqualTo(SlotHash.getSlot("api:user-1"));
  }

  @Test
  void of_keepsKeysUpToTheBoundAndHashesLongerOnes() {
    String longest = "k".repeat(KeyNames.MAX_BYTES - "api:".length());
    assertThat(names.of("api", longest)).isEqualTo("ratelimit:{api:" + longest + "}");

    String tooLong = longest + "k";
    String hashed = names.of("api", tooLong);
    assertThat(hashed).matches("ratelimit:\\{#[0-9a-f]{64}}").isEqualTo(names.of("api", tooLong));
    assertThat(names.of("api", tooLong + "x")).isNotEqualTo(hashed);
    assertThat(names.of("other", tooLong)).as("the name is hashed with the key").isNotEqualTo(hashed);
  }

  @Test
  void of_countsUtf8BytesNotChars() {
    String key = "\u00e9".repeat(130); // 260 bytes in UTF-8, 130 chars
    assertThat(names.of("a", key)).startsWith("ratelimit:{#");
    assertThat(names.of("a", "\u00e9".repeat(120))).isEqualTo("ratelimit:{a:" + "\u00e9".repeat(120) + "}");
  }
}

package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.StoreUnavailableException;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Configuration mistakes fail at once, with messages naming the bad value; no Redis needed. */
class RedisStoreBuilderTest {

  @Test
  void build_rejectsAMalformedUriNamingItWithoutItsPassword() {
    assertThatThrownBy(() -> RedisStore.builder().uri("http://user:secret@localhost:6379").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid Redis URI 'http://localhost:6379'")
        .hasMessageNotContaining("secret");
  }

  @Test
  void build_failsNamingTheUriWhenNothingListens() throws IOException {
    String uri = "redis://:secret@127.0.0.1:" + RedisServer.freePort();
    assertThatThrownBy(() -> RedisStore.builder().uri(uri).build())
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageStartingWith("Redis at redis://127.0.0.1:")
        .hasMessageContaining("unavailable")
        .hasMessageNotContaining("secret");
  }

  @Test
  void build_wantsExactlyOneWayToReachRedis() {
    assertThatThrownBy(() -> RedisStore.builder().build()).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("exactly one of uri, cluster, client");
    assertThatThrownBy(() -> RedisStore.builder().uri("redis://a").cluster("redis://b").build())
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void settings_rejectBadValues() {
    assertThatThrownBy(() -> RedisStore.builder().keyPrefix("rl{x}")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'rl{x}'");
    assertThatThrownBy(() -> RedisStore.builder().keyPrefix("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RedisStore.builder().commandTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT0S");
    assertThatThrownBy(() -> RedisStore.builder().cluster()).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RedisStore.builder().syncInterval(Duration.ofNanos(999_999)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("syncInterval").hasMessageContaining("PT0.000999999S");
    assertThatThrownBy(() -> RedisStore.builder().syncInterval(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("syncInterval");
    assertThatThrownBy(() -> RedisStore.builder().syncInterval(null)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void maxPending_rejectsBadValuesNamingTheSettingAndTheValue() {
    for (int bad : new int[] {0, -1, Integer.MIN_VALUE}) {
      assertThatThrownBy(() -> RedisStore.builder().maxPending(bad)).isInstanceOf(IllegalArgumentException.class)
          .hasMessage("maxPending must be at least 1 but was " + bad);
    }
    assertThat(RedisStore.builder().maxPending(1)).isNotNull();
  }

  @Test
  void scripts_areOnePerKindPlusOneForLimitAll() {
    for (String kind : new String[] {"token-bucket", "gcra", "fixed-window", "sliding-window", "sliding-log", "quota"}) {
      Script script = Script.forKind(kind);
      assertThat(script.source()).contains("KINDS['" + kind + "']").contains("main-batch.lua");
      assertThat(script.sha()).matches("[0-9a-f]{40}");
    }
    assertThat(Script.LIMIT_ALL.source()).contains("KINDS['quota']", "KINDS['gcra']", "main-all.lua");
    assertThatThrownBy(() -> Script.forKind("leaky")).isInstanceOf(IllegalArgumentException.class);
  }
}

package dev.ratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.SwitchableStore;
import dev.ratelimit.store.InMemoryStore;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every key reaches a store bounded, whatever the front end, and distinct
 * keys, lone surrogates included, never share a bucket.
 */
class KeyBoundsTest {
  private final ManualClock clock = new ManualClock(1_767_225_600_000L);
  private final SwitchableStore store = new SwitchableStore(new InMemoryStore(clock));
  private final RateLimiter limiter = RateLimiter.builder().clock(clock).store(store)
      .limit("login", "token-bucket rate=5 period=15m").build();

  @Test
  void twoHundredCallsWithOneMegabyteKeys_storeNoKeyOverTwoHundredFiftySixBytes() {
    for (int i = 0; i < 200; i++) {
      String key = (char) ('a' + i % 26) + "x".repeat(1 << 20) + i;
      switch (i % 5) {
        case 0 -> limiter.named("login").limit(key, 1);
        case 1 -> limiter.named("login").check(key, 1);
        case 2 -> limiter.named("login").refund(key, 1);
        case 3 -> limiter.named("login").reset(key);
        default -> limiter.limitAll(limiter.named("login").call(key, 1));
      }
    }
    assertThat(store.keys()).hasSize(200);
    for (String key : store.keys()) {
      assertThat(key.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(256);
    }
    assertThat(new HashSet<>(store.keys())).as("200 distinct keys, 200 distinct stored keys").hasSize(200);
  }

  @Test
  void aOneMegabyteKey_isStillLimited() {
    String key = "u".repeat(1 << 20);
    int admitted = 0;
    for (int i = 0; i < 10; i++) {
      admitted += limiter.named("login").limit(key, 1).allowed() ? 1 : 0;
    }
    assertThat(admitted).isEqualTo(5);
  }

  @Test
  void loneSurrogates_andTheQuestionMarkUtf8WritesForThem_areThreeBuckets() {
    String longer = "v".repeat(300);
    for (String key : List.of("u\uD800", "u\uDFFF", "u?", longer + "\uD800", longer + "\uDFFF", longer + "?")) {
      for (int i = 0; i < 5; i++) {
        assertThat(limiter.named("login").limit(key, 1).allowed()).as("%s, call %d", key, i).isTrue();
      }
    }
    Set<String> stored = new HashSet<>(store.keys());
    assertThat(stored).hasSize(6);
    for (String key : stored) {
      assertThat(new String(key.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8))
          .as("what reaches a store survives UTF-8").isEqualTo(key);
    }
  }
}

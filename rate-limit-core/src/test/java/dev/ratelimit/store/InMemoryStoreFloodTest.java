package dev.ratelimit.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.limiter.RateLimiter;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link InMemoryStoreEvictionTest}'s floods at full size, on the default store (a million keys).
 * Minutes, not seconds, so tagged {@code flood}: left out of a module's own build, run by
 * {@code ./run-tests} (CONTRIBUTING.md, "Test tags").
 */
@Tag("flood")
class InMemoryStoreFloodTest {

  /** 1.1M keys of a daily quota do not free an exhausted login. */
  @Test
  void crossLimitFlood_ofOnePointOneMillionKeys_doesNotFreeAnExhaustedLogin() {
    RateLimiter l = RateLimiter.builder().store(new InMemoryStore())
        .limit("login", "token-bucket rate=5 period=15m")
        .limit("api", "quota rate=1000 cadence=day").build();
    for (int i = 0; i < 6; i++) {
      l.named("login").limit("victim", 1);
    }
    for (int i = 0; i < 1_100_000; i++) {
      l.named("api").limit("a" + i, 1);
    }
    assertThat(l.named("login").limit("victim", 1).allowed()).isFalse();
  }

  /** Three million exhausted keys of the victim's own limit. */
  @ParameterizedTest
  @ValueSource(strings = {"token-bucket rate=5 period=15m", "sliding-log rate=5 period=15m"})
  void sameLimitFlood_ofThreeMillionExhaustedKeys_doesNotFreeAnOlderOne(String spec) {
    InMemoryStore store = new InMemoryStore();
    RateLimiter l = RateLimiter.builder().store(store).limit("login", spec).build();
    int admitted = 0;
    for (int i = 0; i < 6; i++) {
      admitted += l.named("login").limit("victim", 1).allowed() ? 1 : 0;
    }
    for (int i = 0; i < 3_000_000; i++) {
      l.named("login").limit("a" + i, 5);
      if (i % 1000 == 0) {
        admitted += l.named("login").limit("victim", 1).allowed() ? 1 : 0;
      }
    }
    assertThat(admitted).as("within a quarter hour (the run is shorter)").isEqualTo(5);
    assertThat(store.size()).isLessThanOrEqualTo(InMemoryStore.DEFAULT_MAX_KEYS);
  }
}

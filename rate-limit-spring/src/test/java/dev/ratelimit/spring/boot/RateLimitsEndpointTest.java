package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.SwitchableStore;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.InMemoryStore;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/** The endpoint's answers to a runtime change the store refuses or the parser rejects. */
class RateLimitsEndpointTest {
  private final ManualClock clock = new ManualClock(1_767_225_600_000L);
  private final SwitchableStore store = new SwitchableStore(new InMemoryStore(clock));
  private final RateLimiter limiter = RateLimiter.builder().clock(clock).store(store)
      .limit("api", "token-bucket rate=5 period=1m").build();
  private final RateLimitsEndpoint endpoint = new RateLimitsEndpoint(limiter, new DecisionCounts(List.of("api")));

  @Test
  void replace_whileTheStoreCannotRecordIt_is503AndChangesNothing() {
    store.switchOff();
    WebEndpointResponse<Map<String, String>> answer = endpoint.replace("api", "token-bucket rate=50 period=1m", null);
    assertThat(answer.getStatus()).isEqualTo(503);
    assertThat(answer.getBody()).containsEntry("error", "switched off");
    assertThat(limiter.limits().get("api")).hasToString("token-bucket rate=5 period=1m");
  }

  @Test
  void replace_withABadSpec_is400NamingTheSpec() {
    WebEndpointResponse<Map<String, String>> answer = endpoint.replace("api", "token-bucket rate=-1 period=1m", null);
    assertThat(answer.getStatus()).isEqualTo(400);
    assertThat(answer.getBody().get("error")).contains("rate=-1");
    assertThat(limiter.limits().get("api")).hasToString("token-bucket rate=5 period=1m");
  }

  @Test
  void replace_whenTheStoreTakesIt_is200WithBothSpecs() {
    WebEndpointResponse<Map<String, String>> answer = endpoint.replace("api", "token-bucket rate=50 period=1m", null);
    assertThat(answer.getStatus()).isEqualTo(200);
    assertThat(answer.getBody()).containsEntry("spec", "token-bucket rate=50 period=1m")
        .containsEntry("previous", "token-bucket rate=5 period=1m");
  }
}

package dev.ratelimit.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.SwitchableStore;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.InMemoryStore;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.server.WebFilterChain;

/**
 * A store that refuses to queue more decisions (the Redis store past {@code maxPending}) is load,
 * not a failure (docs/design.md §4.3.1, §6.5): the filter answers 503 with {@code Retry-After}
 * and a problem body saying so, never a 500; the handler does not run; no failure policy decides
 * and the store stays available.
 */
class RateLimitWebFilterBusyStoreTest {
  private final ManualClock clock = new ManualClock(1_700_000_000_000L);
  private final SwitchableStore store = new SwitchableStore(new InMemoryStore(clock));
  private final RateLimiter limiter = RateLimiter.builder().clock(clock).store(store)
      .limit("api", "token-bucket rate=10 period=1h failure=open").build();
  private final RateLimitWebFilter filter = RateLimitWebFilter.builder().limiter(limiter)
      .rule("/api/**", "api", "header:X-User", 1).build();
  private final AtomicInteger handled = new AtomicInteger();

  private MockServerWebExchange run(String user) {
    MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/api/x").header("X-User", user));
    WebFilterChain handler = e -> {
      handled.incrementAndGet();
      e.getResponse().setStatusCode(HttpStatus.OK);
      return e.getResponse().setComplete();
    };
    filter.filter(exchange, handler).block(Duration.ofSeconds(5));
    return exchange;
  }

  @Test
  void aStoreRefusingToQueue_is503WithRetryAfter_theHandlerDoesNotRun_andTheStoreStaysAvailable() {
    assertThat(run("ann").getResponse().getStatusCode()).isEqualTo(HttpStatus.OK);
    store.refuseAsync();
    for (int i = 0; i < 20; i++) {
      MockServerWebExchange busy = run("ann");
      assertThat(busy.getResponse().getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
      assertThat(busy.getResponse().getHeaders().getFirst("Retry-After")).isEqualTo("1");
      assertThat(busy.getResponse().getBodyAsString().block(Duration.ofSeconds(5)))
          .contains("\"limit\":\"api\"", "too many decisions are waiting", "\"retryAfter\":1");
    }
    assertThat(handled.get()).as("only the request decided before the store refused").isEqualTo(1);
    assertThat(limiter.storeAvailable()).as("load is no failure: the open policy never decided").isTrue();
    assertThat(limiter.named("api").check("ann", 0).remaining()).as("nothing taken while refused").isEqualTo(9);
  }
}

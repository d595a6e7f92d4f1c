package dev.ratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Decision;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Operation;
import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.contract.LogLines;
import dev.ratelimit.store.KeySpace;
import dev.ratelimit.store.RateLimitStore;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Values from a request (a plan, a key) and from a store (a failure's message) in the limiter's
 * log lines: quoted, escaped and cut, so that none starts a forged line or makes a line of megabytes.
 */
class ForgedLogLinesTest {
  private static final String FORGED = "x\n2026-01-01 WARN FORGED\r\u2028\u001b[31m";
  private static final String FORGED_ESCAPED = "\"x\\n2026-01-01 WARN FORGED\\r\\u2028\\u001b[31m";

  private final ManualClock clock = new ManualClock(1_767_225_600_000L);
  private final LogLines log = LogLines.capture("dev.ratelimit");

  @AfterEach
  void release() {
    log.close();
  }

  @Test
  void unknownPlan_fromARequest_isOneQuotedLine_cutToItsStart() {
    RateLimiter limiter = RateLimiter.builder().clock(clock).limit("api", "10/1m").onPlan("pro").limit("api", "100/1m").build();

    limiter.named("api").onPlan(FORGED).limit("alice", 1);
    limiter.named("api").onPlan(FORGED + "p".repeat(5_000_000)).limit("alice", 1);

    assertThat(log.at(Level.WARNING)).hasSize(2).allSatisfy(line -> assertThat(line)
        .startsWith("limit 'api' has no plan " + FORGED_ESCAPED).matches(LogLines::isSafe));
  }

  @Test
  void shadowKey_withALineBreak_isOneQuotedLine() {
    RateLimiter limiter = RateLimiter.builder().clock(clock).limit("watch", "fixed-window rate=1 period=1h mode=shadow")
        .build();

    limiter.named("watch").limit(FORGED, 1);
    limiter.named("watch").limit(FORGED, 1);

    assertThat(log.at(Level.INFO)).singleElement().asString()
        .contains("would have denied key " + FORGED_ESCAPED + "\"").matches(LogLines::isSafe);
  }

  @Test
  void storeFailure_withALineBreakInItsMessage_isOneQuotedLine() {
    RateLimitStore down = new RateLimitStore() {
      @Override
      public KeySpace bind(String name, Limit limit) {
        return new Down(name, limit);
      }
    };
    RateLimiter limiter = RateLimiter.builder().clock(clock).store(down).storeFailure(FailurePolicy.OPEN)
        .limit("api", "10/1m").build();

    assertThat(limiter.named("api").limit("alice", 1).allowed()).isTrue();

    assertThat(log.at(Level.WARNING)).singleElement().asString()
        .contains("until it answers again: " + FORGED_ESCAPED + "\"").matches(LogLines::isSafe);
  }

  /** A store that is down, failing with a message that tries to start a line of its own. */
  private record Down(String name, Limit limit) implements KeySpace {
    @Override
    public Decision apply(String key, Operation op, double count, long maxWaitMillis) {
      throw new StoreUnavailableException(FORGED, null);
    }

    @Override
    public void reset(String key) {
      throw new StoreUnavailableException(FORGED, null);
    }

    @Override
    public Decision refund(String key, double count) {
      throw new StoreUnavailableException(FORGED, null);
    }
  }
}

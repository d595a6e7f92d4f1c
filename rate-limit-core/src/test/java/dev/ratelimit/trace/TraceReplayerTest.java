package dev.ratelimit.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.limiter.RateLimiter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TraceReplayerTest {
  private final ManualClock clock = new ManualClock();

  private TraceReplayer replayer(String... namesAndSpecs) {
    RateLimiter.Builder builder = RateLimiter.builder().clock(clock);
    for (int i = 0; i < namesAndSpecs.length; i += 2) {
      builder.limit(namesAndSpecs[i], namesAndSpecs[i + 1]);
    }
    return new TraceReplayer(builder.build(), clock);
  }

  @Test
  void replay_echoesTheInputFieldsAsWrittenThenTheDecision() {
    TraceReplayer replayer = replayer("api", "token-bucket rate=125 period=1s capacity=5");
    assertThat(replayer.replay("{\"t\":0,\"key\":\"u1\",\"count\":2.50,\"note\":{\"a\":[1,2]}}").json())
        .isEqualTo("{\"t\": 0, \"key\": \"u1\", \"count\": 2.50, \"note\": {\"a\":[1,2]}, \"allowed\": true, "
            + "\"remaining\": 2.5, \"retryAfterMs\": 0, \"resetAfterMs\": 20}");
  }

  @Test
  void replay_takeAndRefund_settleUnitsAndAnswerAsACheckForNoUnits() {
    TraceReplayer replayer = replayer("api", "token-bucket rate=125 period=1s capacity=5");
    TraceReplayer.Outcome take = replayer.replay("{\"t\": 0, \"key\": \"u\", \"op\": \"take\", \"count\": 7}");
    assertThat(take.json()).isEqualTo("{\"t\": 0, \"key\": \"u\", \"op\": \"take\", \"count\": 7, \"allowed\": false, "
        + "\"remaining\": -2, \"retryAfterMs\": 16, \"resetAfterMs\": 56}");
    assertThat(take.request().settles()).isTrue();
    assertThat(replayer.replay("{\"t\": 0, \"key\": \"u\", \"op\": \"refund\", \"count\": 3}").json())
        .isEqualTo("{\"t\": 0, \"key\": \"u\", \"op\": \"refund\", \"count\": 3, \"allowed\": true, "
            + "\"remaining\": 1, \"retryAfterMs\": 0, \"resetAfterMs\": 32}");
    assertThat(replayer.replay("{\"t\": 0, \"key\": \"u\", \"op\": \"check\"}").request().settles()).isFalse();
  }

  @Test
  void replay_resetEchoesWithResetTrue() {
    TraceReplayer replayer = replayer("api", "10/1m");
    assertThat(replayer.replay("{\"t\": 5, \"key\": \"u\", \"op\": \"reset\"}").json())
        .isEqualTo("{\"t\": 5, \"key\": \"u\", \"op\": \"reset\", \"reset\": true}");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"t\": 0, \"key\": \"u\", \"op\": \"spend\"}|unknown op 'spend'; allowed: limit, check, reserve, reset, take, refund",
      "{\"t\": 0, \"key\": \"u\", \"op\": \"take\", \"count\": -1}|take count must be a finite number, 0 or more, but was -1.0 (limit 'api')",
      "{\"t\": 0, \"key\": \"u\", \"op\": \"refund\", \"count\": -2}|refund count must be a finite number, 0 or more, but was -2.0 (limit 'api')",
      "{\"t\": 0, \"key\": \"u\", \"count\": \"2\"}|\"count\" must be a number but was \"2\"",
      "{\"t\": 0, \"key\": \"u\", \"count\": -1}|count must be a finite number, 0 or more, but was -1.0 (limit 'api')",
      "{\"t\": 0, \"key\": \"u\", \"count\": 11}|count 11 is above the capacity, 10, of limit 'api': it could never be admitted",
      "{\"t\": 0, \"key\": \"u\", \"limit\": \"apx\"}|unknown limit 'apx'; declared: api",
      "{\"key\": \"u\"}|missing \"t\" (epoch milliseconds)",
      "{\"t\": 1.5, \"key\": \"u\"}|\"t\" must be whole epoch milliseconds but was 1.5",
      "{\"t\": 0, \"key\": 7}|\"key\" must be a string but was 7",
  })
  void replay_aLineThatCantBeDecided_isAnErrorLineAndChangesNothing(String line, String message) {
    TraceReplayer replayer = replayer("api", "10/1m");
    TraceReplayer.Outcome outcome = replayer.replay(line);
    assertThat(outcome.isError()).isTrue();
    assertThat(outcome.error()).isEqualTo(message);
    assertThat(outcome.json()).startsWith(line.substring(0, line.length() - 1))
        .endsWith(", \"error\": true, \"message\": " + JsonLine.quote(message) + "}");
    assertThat(replayer.replay("{\"t\": 0, \"key\": \"u\", \"count\": 10}").decision().allowed())
        .as("nothing was taken").isTrue();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"t\": 0, \"key\": |bad JSON at column 16: unexpected end of line",
      "not json|bad JSON at column 1: expected '{'",
      "{\"t\": 0} trailing|bad JSON at column 10: unexpected text after the object",
      "{\"t\": 0, \"t\": 1}|bad JSON at column 16: field \"t\" appears twice",
      "{\"k\": \"\\q\"}|bad JSON at column 8: bad escape '\\q'",
      "{\"k\": \"\\u12x4\"}|bad JSON at column 8: bad \\u escape",
  })
  void replay_brokenJson_isAnErrorLineWithTheInput(String line, String message) {
    TraceReplayer.Outcome outcome = replayer("api", "10/1m").replay(line);
    assertThat(outcome.error()).isEqualTo(message);
    assertThat(outcome.json()).isEqualTo("{\"error\": true, \"message\": " + JsonLine.quote(message) + ", \"input\": "
        + JsonLine.quote(line) + "}");
  }

  @Test
  void replay_withoutALimitAndSeveralDeclared_isAnError() {
    TraceReplayer replayer = replayer("a", "10/1m", "b", "5/1m");
    assertThat(replayer.replay("{\"t\": 0, \"key\": \"u\"}").error())
        .isEqualTo("no \"limit\" given and 2 limits are declared: a, b");
  }

  @Test
  void replay_fieldsNamedLikeOutputFieldsAreNotEchoedTwice() {
    TraceReplayer replayer = replayer("api", "10/1m");
    assertThat(replayer.replay("{\"t\": 0, \"allowed\": false}").json())
        .isEqualTo("{\"t\": 0, \"allowed\": true, \"remaining\": 9, \"retryAfterMs\": 0, \"resetAfterMs\": 6000}");
  }

  @Test
  void probe_readsTheLevelAtATimeWithoutChangingIt() {
    TraceReplayer replayer = replayer("api", "token-bucket rate=10 period=1s");
    replayer.replay("{\"t\": 1000, \"key\": \"u\", \"count\": 10}");
    assertThat(replayer.probe("api", "u", 1500).remaining()).isEqualTo(5);
    assertThat(replayer.probe("api", "u", 1500).remaining()).isEqualTo(5);
    assertThat(replayer.replay("{\"t\": 1100, \"key\": \"u\"}").decision().allowed()).isTrue();
  }
}

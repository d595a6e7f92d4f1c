package dev.ratelimit.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.limiter.Decisions;
import dev.ratelimit.limiter.NamedLimiter;
import dev.ratelimit.limiter.RateLimiter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RateLimitHeadersTest {
  private final ManualClock clock = new ManualClock(1_700_000_000_000L);

  private static Rule rule(String name, String spec) {
    return Rule.of(UrlPattern.parse("/*"), name, Map.of(name, Limit.parse(spec)), Keys.header("X-Key"), 1);
  }

  private static Decisions decisions(Rule[] rules, Decision... decisions) {
    RateLimiter.Builder builder = RateLimiter.builder();
    java.util.Set<String> named = new java.util.HashSet<>();
    for (Rule rule : rules) {
      if (named.add(rule.limit())) {
        builder.limit(rule.limit(), rule.spec());
      }
    }
    RateLimiter limiter = builder.build(); // the calls' limits: their decisions are given

    List<NamedLimiter.Call> calls = java.util.Arrays.stream(rules).map(r -> limiter.named(r.limit()).call("k")).toList();
    return new Decisions(calls, List.of(decisions));
  }

  /** Writes through the one-rule path for one rule, and checks the several-rules path agrees. */
  private Map<String, String> write(RateLimitHeaders headers, Rule[] rules, Decision... decisions) {
    FakeResponse response = new FakeResponse();
    headers.write(response, rules, decisions(rules, decisions), clock);
    if (rules.length == 1) {
      FakeResponse single = new FakeResponse();
      headers.write(single, rules[0], decisions[0], clock);
      assertThat(single.headers).isEqualTo(response.headers);
    }
    return response.headers;
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "token-bucket rate=100 period=1m | \"api\";q=100;w=60",
      "token-bucket rate=100 period=1m capacity=20 | \"api\";q=20;w=12",
      "gcra rate=5 period=1s capacity=10 | \"api\";q=10;w=2",
      "token-bucket rate=7 period=1s capacity=1 | \"api\";q=1;w=1",
      "token-bucket rate=3 period=10s | \"api\";q=3;w=10",
      "10/1m capacity=2.5 | \"api\";q=2;w=15",
      "fixed-window rate=100 period=1h | \"api\";q=100;w=3600",
      "fixed-window rate=10 period=1m capacity=25 | \"api\";q=25;w=180",
      "sliding-window rate=100 period=1m | \"api\";q=100;w=60",
      "sliding-window rate=10 period=1500ms buckets=10 | \"api\";q=10;w=2",
      "sliding-log rate=20 period=10s | \"api\";q=20;w=10",
      "quota rate=1000 cadence=month | \"api\";q=1000",
      "token-bucket rate=100 period=1m shards=4 | \"api\";q=100;w=60",
  })
  void policy_givesCapacityAndSecondsToRefillFromEmpty(String spec, String policy) {
    assertThat(rule("api", spec).policy()).isEqualTo(policy);
  }

  @Test
  void write_setsBothFamiliesForOneLimit() {
    Rule[] rules = {rule("api", "token-bucket rate=100 period=1m")};
    assertThat(write(RateLimitHeaders.DEFAULT, rules, new Decision(true, 41.7, 100, 0, 34_999))).containsExactly(
        entry("X-RateLimit-Limit", "100"),
        entry("X-RateLimit-Remaining", "41"),
        entry("X-RateLimit-Reset", "35"),
        entry("RateLimit-Policy", "\"api\";q=100;w=60"),
        entry("RateLimit", "\"api\";r=41;t=35"));
  }

  @Test
  void write_legacyDescribesTheMostRestrictiveAndIetfListsEveryPolicy() {
    Rule[] rules = {rule("api", "token-bucket rate=100 period=1m"), rule("burst", "token-bucket rate=5 period=1s")};
    Map<String, String> admitted = write(RateLimitHeaders.DEFAULT, rules,
        new Decision(true, 90, 100, 0, 6_000), new Decision(true, 2, 5, 0, 600));
    assertThat(admitted).containsExactly(
        entry("X-RateLimit-Limit", "5"),
        entry("X-RateLimit-Remaining", "2"),
        entry("X-RateLimit-Reset", "1"),
        entry("RateLimit-Policy", "\"api\";q=100;w=60, \"burst\";q=5;w=1"),
        entry("RateLimit", "\"api\";r=90;t=6, \"burst\";r=2;t=1"));
    // denied: the denying limit with the longest wait, though the other has fewer left
    Map<String, String> denied = write(RateLimitHeaders.DEFAULT, rules,
        new Decision(false, 0.5, 100, 3_000, 60_000), new Decision(true, 0, 5, 0, 1_000));
    assertThat(denied).contains(entry("X-RateLimit-Limit", "100"), entry("X-RateLimit-Remaining", "0"),
        entry("X-RateLimit-Reset", "60"));
  }

  /**
   * The exact text of each family for the decisions at the edges: nothing left, a fraction left,
   * numbers past the small ones kept as text ({@link NumberText#KEPT}), a key already full.
   * Clients parse these: they must not change by a byte.
   */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      // remaining | limit | resetAfterMillis | X-RateLimit-Limit | X-RateLimit-Remaining | X-RateLimit-Reset
      "0 | 100 | 60000 | 100 | 0 | 60",
      "-2.5 | 100 | 61001 | 100 | 0 | 62",
      "41.7 | 100 | 34999 | 100 | 41 | 35",
      "0.999 | 1 | 1 | 1 | 0 | 1",
      "1023.5 | 1024 | 1023000 | 1024 | 1023 | 1023",
      "4999999998.75 | 5000000000 | 9007199254740991 | 5000000000 | 4999999998 | 9007199254741",
      "100 | 100 | 0 | 100 | 100 | 0",
  })
  void legacy_exactText(double remaining, double limit, long resetAfterMillis, String limitText, String remainingText,
      String resetText) {
    FakeResponse response = new FakeResponse();
    RateLimitHeaders.parse("legacy").write(response, "api", "unused", new Decision(true, remaining, limit, 0,
        resetAfterMillis), clock);
    assertThat(response.headers).containsExactly(entry("X-RateLimit-Limit", limitText),
        entry("X-RateLimit-Remaining", remainingText), entry("X-RateLimit-Reset", resetText));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      // spec | remaining | resetAfterMillis | RateLimit-Policy | RateLimit
      "token-bucket rate=100 period=1m | 0 | 60000 | \"api\";q=100;w=60 | \"api\";r=0;t=60",
      "token-bucket rate=100 period=1m | 41.7 | 34999 | \"api\";q=100;w=60 | \"api\";r=41;t=35",
      "token-bucket rate=100 period=1m | 100 | 0 | \"api\";q=100;w=60 | \"api\";r=100;t=0",
      "token-bucket rate=5000000000 period=1d | 4999999998.75 | 86400000 | \"api\";q=5000000000;w=86400 | \"api\";r=4999999998;t=86400",
      "quota rate=1000 cadence=month | 999 | 2678400000 | \"api\";q=1000 | \"api\";r=999;t=2678400",
  })
  void ietf_exactText(String spec, double remaining, long resetAfterMillis, String policy, String state) {
    Rule rule = rule("api", spec);
    FakeResponse response = new FakeResponse();
    RateLimitHeaders.parse("ietf").write(response, rule, new Decision(true, remaining, rule.spec().capacity(), 0,
        resetAfterMillis), clock);
    assertThat(response.headers).containsExactly(entry("RateLimit-Policy", policy), entry("RateLimit", state));
  }

  @Test
  void ietf_severalLimitsExactText() {
    Rule[] rules = {rule("api", "token-bucket rate=100 period=1m"), rule("day", "token-bucket rate=2000 period=1d")};
    assertThat(write(RateLimitHeaders.parse("ietf"), rules,
        new Decision(true, 0.5, 100, 0, 0), new Decision(true, 1999.25, 2000, 0, 86_399_001))).containsExactly(
        entry("RateLimit-Policy", "\"api\";q=100;w=60, \"day\";q=2000;w=86400"),
        entry("RateLimit", "\"api\";r=0;t=0, \"day\";r=1999;t=86400"));
  }

  @Test
  void write_epochGivesAbsoluteSecondsRoundedUp() {
    Rule[] rules = {rule("api", "10/1m")};
    assertThat(write(RateLimitHeaders.parse("legacy,epoch"), rules, new Decision(true, 9, 10, 0, 6_000)))
        .containsExactly(entry("X-RateLimit-Limit", "10"), entry("X-RateLimit-Remaining", "9"),
            entry("X-RateLimit-Reset", "1700000006"));
    clock.advanceMillis(1);
    assertThat(write(RateLimitHeaders.parse("legacy epoch"), rules, new Decision(true, 9, 10, 0, 6_000)))
        .containsEntry("X-RateLimit-Reset", "1700000007");
  }

  @Test
  void write_familiesAreSelectable() {
    Rule[] rules = {rule("api", "10/1m")};
    Decision decision = new Decision(true, 9, 10, 0, 6_000);
    assertThat(write(RateLimitHeaders.parse("none"), rules, decision)).isEmpty();
    assertThat(write(RateLimitHeaders.parse("ietf"), rules, decision)).containsOnlyKeys("RateLimit-Policy", "RateLimit");
    assertThat(write(RateLimitHeaders.parse(" LEGACY "), rules, decision))
        .containsOnlyKeys("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = { // the messages quote with '
      "legacy,fancy | unknown header family 'fancy'; allowed: legacy, ietf, none, and epoch (X-RateLimit-Reset as absolute epoch seconds)",
      "\"\" | no header family; allowed: legacy, ietf, none, and epoch (X-RateLimit-Reset as absolute epoch seconds)",
      "none,ietf | 'none' can't be combined with other header families",
      "ietf,epoch | 'epoch' changes X-RateLimit-Reset and needs 'legacy'",
  })
  void parse_refusesUnknownFamilies(String value, String message) {
    assertThatThrownBy(() -> RateLimitHeaders.parse(value)).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }

  @ParameterizedTest
  @CsvSource({"41.99, 41", "42, 42", "41.999999999999996, 42", "0.3, 0", "-2.5, 0", "0, 0"})
  void units_roundDownNeverBelowZeroIgnoringFloatNoise(double value, long units) {
    assertThat(RateLimitHeaders.units(value, 100)).isEqualTo(units);
  }

  @ParameterizedTest
  @CsvSource({"0, 0", "1, 1", "999, 1", "1000, 1", "1001, 2", "59999, 60"})
  void seconds_roundUp(long millis, long seconds) {
    assertThat(RateLimitHeaders.seconds(millis)).isEqualTo(seconds);
  }

  /**
   * What a front end may keep ready-made (Jetty's pre-encoded fields): the numbers, and a rule's
   * own policy item, the same string on every response; never a value made for this response
   * (the state, a list of several policies), which would fill its store with one-off values.
   */
  @Test
  void write_marksOnlyNumbersAndARulesOwnPolicyAsRepeatable() {
    Rule api = rule("api", "token-bucket rate=100 period=1m");
    Rule burst = rule("burst", "token-bucket rate=5 period=1s");
    Decision decision = new Decision(true, 41.7, 100, 0, 34_999);
    Kinds one = new Kinds();
    RateLimitHeaders.DEFAULT.write(one, api, decision, clock);
    assertThat(one.kinds).containsExactly("LIMIT=#100", "REMAINING=#41", "RESET=#35",
        "POLICY=repeated \"api\";q=100;w=60", "STATE=\"api\";r=41;t=35");
    assertThat(one.policy).isSameAs(api.policy());

    Kinds two = new Kinds();
    Rule[] rules = {api, burst};
    RateLimitHeaders.DEFAULT.write(two, rules, decisions(rules, decision, new Decision(true, 4, 5, 0, 200)), clock);
    assertThat(two.kinds).containsExactly("LIMIT=#5", "REMAINING=#4", "RESET=#1",
        "POLICY=\"api\";q=100;w=60, \"burst\";q=5;w=1", "STATE=\"api\";r=41;t=35, \"burst\";r=4;t=1");

    // after another rate limit filter: replaced by name, whatever the kind
    FakeResponse again = new FakeResponse();
    RateLimitHeaders.DEFAULT.write(again, api, decision, clock);
    RateLimitHeaders.DEFAULT.write(again, api, new Decision(true, 40, 100, 0, 36_000), clock);
    assertThat(again.headers).containsEntry("X-RateLimit-Remaining", "40").containsEntry("RateLimit", "\"api\";r=40;t=36");
  }

  /** Notes how each rate limit header is added: as a number, a repeated value, or a value of this response. */
  private static final class Kinds extends FakeResponse {
    final List<String> kinds = new java.util.ArrayList<>();
    String policy;

    @Override
    public void addNumber(LimitHeader header, long value) {
      kinds.add(header + "=#" + value);
      super.addNumber(header, value);
    }

    @Override
    public void addHeader(LimitHeader header, String value, boolean repeated) {
      kinds.add(header + "=" + (repeated ? "repeated " : "") + value);
      if (repeated) {
        policy = value;
      }
      super.addHeader(header, value, repeated);
    }
  }
}

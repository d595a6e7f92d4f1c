package dev.ratelimit.http;

import dev.ratelimit.http.builder.MissingKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.Concurrently;
import dev.ratelimit.contract.LogLines;
import dev.ratelimit.limiter.RateLimiter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A {@code cost-header} rule's settlement (docs/design.md §6.1): charged its cost up front, then
 * settled with the cost the response states, on the blocking path (one rule: its pending charge)
 * and the non-blocking one, alone and among other rules; with {@code charge-on}; for a client
 * that went away; and every value a response could carry that is not a cost, which keeps the
 * charge as made. The remaining units are read with {@code check}, which charges nothing.
 */
class CostHeaderSettlementTest {
  private final ManualClock clock = new ManualClock(1_700_000_000_000L);
  private final RateLimiter limiter = RateLimiter.builder().clock(clock)
      .limit("tokens", "token-bucket rate=1000 period=1h")
      .limit("calls", "fixed-window rate=100 period=1h").build();

  private Rule rule(String limit, double cost, RuleOptions options) {
    return Rule.of(UrlPattern.parse("/*"), limit, limiter.limits(), limiter.plans(), Keys.header("X-User"), cost,
        options);
  }

  private Rule tokens(String chargeOn) {
    return rule("tokens", 100, new RuleOptions(null, chargeOn == null ? null : ChargeOn.parse(chargeOn), null, null,
        null, "X-Tokens", null));
  }

  private double remaining(String limit, String user) {
    return limiter.named(limit).check(user, 0).remaining();
  }

  private static Function<String, List<String>> stating(String... values) {
    Map<String, List<String>> headers = Map.of("X-Tokens", List.of(values));
    return name -> headers.getOrDefault(name, List.of());
  }

  private Charges.Settlement spend(Rule[] rules, String user) {
    Charges.Verdict verdict = Charges.of(rules, ChargesTest.request("X-User", user), MissingKey.GLOBAL)
        .spend(limiter, RateLimitHeaders.DEFAULT, new FakeResponse());
    assertThat(verdict.allowed()).isTrue();
    assertThat(verdict.settlement().start()).isTrue();
    return verdict.settlement();
  }

  private Charges.Settlement spendAsync(Rule[] rules, String user) throws Exception {
    Charges.Verdict verdict = Charges.of(rules, ChargesTest.request("X-User", user), MissingKey.GLOBAL)
        .spendAsync(limiter, RateLimitHeaders.DEFAULT, new FakeResponse()).toCompletableFuture()
        .get(5, TimeUnit.SECONDS);
    assertThat(verdict.allowed()).isTrue();
    assertThat(verdict.settlement().start()).isTrue();
    return verdict.settlement();
  }

  @Test
  void statedCost_belowTheEstimateIsRefunded_aboveItIsTaken_evenIntoDebt() {
    Rule[] rules = {tokens(null)};
    Charges.Settlement less = spend(rules, "ann");
    assertThat(remaining("tokens", "ann")).as("the estimate, up front").isEqualTo(900);
    less.settle(200, stating("30"));
    assertThat(remaining("tokens", "ann")).isEqualTo(970);
    spend(rules, "ann").settle(200, stating("350.5"));
    assertThat(remaining("tokens", "ann")).isEqualTo(619.5);
    spend(rules, "ann").settle(200, stating("1500"));
    assertThat(remaining("tokens", "ann")).as("a cost above what was left: paid by the calls after it")
        .isEqualTo(-880.5);
  }

  @Test
  void statedCost_onTheNonBlockingPath_andAmongOtherRules() throws Exception {
    Rule[] alone = {tokens(null)};
    spendAsync(alone, "bea").settle(200, stating("7"));
    assertThat(remaining("tokens", "bea")).isEqualTo(993);
    Rule[] together = {tokens(null), rule("calls", 1, RuleOptions.NONE)};
    spendAsync(together, "bea").settle(200, stating("150"));
    spend(together, "bea").settle(200, stating("0"));
    assertThat(remaining("tokens", "bea")).isEqualTo(843);
    assertThat(remaining("calls", "bea")).as("a rule without a cost header keeps its cost").isEqualTo(98);
  }

  @Test
  void chargeOn_aStatusThatDoesNotCountRefundsEverything_oneThatCountsSettlesByTheStatedCost() {
    Rule[] rules = {tokens("2xx")};
    spend(rules, "cid").settle(503, stating("40"));
    assertThat(remaining("tokens", "cid")).isEqualTo(1000);
    spend(rules, "cid").settle(200, stating("40"));
    assertThat(remaining("tokens", "cid")).isEqualTo(960);
  }

  @Test
  void settlesOnce_whateverComesAfter() {
    Charges.Settlement settlement = spend(new Rule[] {tokens(null)}, "dan");
    settlement.settle(200, stating("10"));
    settlement.settle(200, stating("500"));
    settlement.cancel(stating("900"));
    assertThat(remaining("tokens", "dan")).isEqualTo(990);
  }

  @Test
  void cancel_afterTheStart_settlesByACostStatedBeforeTheClientLeft_elseKeepsTheEstimate() {
    Rule[] rules = {tokens(null)};
    spend(rules, "eve").cancel(stating("12"));
    assertThat(remaining("tokens", "eve")).as("the response was committed with its cost").isEqualTo(988);
    spend(rules, "eve").cancel();
    assertThat(remaining("tokens", "eve")).as("the cost is unknown: the estimate").isEqualTo(888);
  }

  @Test
  void cancel_beforeTheStart_orUnderRefundCancelled_refundsEverything() {
    Charges.Verdict verdict = Charges.of(new Rule[] {tokens(null)}, ChargesTest.request("X-User", "fay"),
        MissingKey.GLOBAL).spend(limiter, RateLimitHeaders.DEFAULT, new FakeResponse());
    verdict.settlement().cancel(stating("12"));
    assertThat(verdict.settlement().start()).as("never runs").isFalse();
    Rule refunding = rule("tokens", 100, new RuleOptions(null, ChargeOn.parse("2xx"), null, null, true, "X-Tokens",
        null));
    spend(new Rule[] {refunding}, "fay").cancel(stating("12"));
    assertThat(remaining("tokens", "fay")).isEqualTo(1000);
  }

  /**
   * Values no application means as a cost, or that a backend could send to hurt: each keeps the
   * estimate, never frees the request, never throws.
   */
  @ParameterizedTest
  @ValueSource(strings = {"", " ", "-1", "-0", "NaN", "Infinity", "1e309", "1e3", "1E3", "0x10", "+5", "5.", ".5",
      "1_000", "1,000", "ten", "5 apples", "\u0665", "99999999999999999999999999999999999999999"})
  void malformedCost_keepsTheEstimate(String value) throws Exception {
    Rule[] rules = {tokens(null)};
    spend(rules, "gus").settle(200, stating(value));
    spendAsync(rules, "gus").settle(200, stating(value));
    assertThat(remaining("tokens", "gus")).isEqualTo(800);
  }

  @Test
  void severalValues_orNone_keepTheEstimate() {
    Rule[] rules = {tokens(null)};
    spend(rules, "hal").settle(200, stating("1", "2"));
    spend(rules, "hal").settle(200, stating());
    assertThat(remaining("tokens", "hal")).isEqualTo(800);
  }

  @Test
  void plainDecimals_upToFortyCharacters_areCosts_whatTheyTakeIsBounded() {
    Rule[] rules = {tokens(null)};
    spend(rules, "ivy").settle(200, stating(" 0.25 "));
    assertThat(remaining("tokens", "ivy")).isEqualTo(999.75);
    spend(rules, "ivy").settle(200, stating("9".repeat(40)));
    assertThat(remaining("tokens", "ivy")).as("one capacity of debt at most").isEqualTo(-1000);
  }

  @Test
  void faults_areLoggedOncePerRuleAndKind_withTheValueQuoted() {
    Rule[] rules = {tokens(null)};
    Rule[] other = {tokens(null)};
    try (LogLines lines = LogLines.capture(Charges.class.getName())) {
      for (int i = 0; i < 3; i++) {
        spend(rules, "jo").settle(200, stating("12\nforged line"));
        spend(rules, "jo").settle(200, stating());
        spend(rules, "jo").settle(200, stating("1", "2"));
      }
      spend(other, "jo").settle(200, stating());
      assertThat(lines.all()).containsExactly(
          "rate limit rule '/* tokens': X-Tokens \"12\\nforged line\" is not one plain decimal number, 0 or more,"
              + " so the request is charged the rule's cost, 100 (logged once per rule)",
          "rate limit rule '/* tokens': the response has no X-Tokens header, so the request is charged the rule's"
              + " cost, 100 (logged once per rule)",
          "rate limit rule '/* tokens': the response has no X-Tokens header, so the request is charged the rule's"
              + " cost, 100 (logged once per rule)");
      assertThat(lines.all()).allMatch(LogLines::isSafe);
    }
  }

  /** Many threads charging and settling at once: the key ends at exactly capacity − Σ stated costs. */
  @Test
  void concurrentSettlements_endAtExactlyCapacityMinusTheStatedCosts() throws Exception {
    RateLimiter big = RateLimiter.builder().clock(clock).limit("tokens", "fixed-window rate=1000000 period=1h").build();
    Rule[] rules = {Rule.of(UrlPattern.parse("/*"), "tokens", big.limits(), big.plans(), Keys.header("X-User"), 100,
        RuleOptions.costHeader("X-Tokens", null))};
    AtomicLong stated = new AtomicLong();
    Concurrently.run(8, () -> {
      for (int i = 0; i < 500; i++) {
        long cost = ThreadLocalRandom.current().nextInt(250);
        stated.addAndGet(cost);
        Charges.Verdict verdict = Charges.of(rules, ChargesTest.request("X-User", "many"), MissingKey.GLOBAL)
            .spend(big, RateLimitHeaders.DEFAULT, new FakeResponse());
        verdict.settlement().start();
        verdict.settlement().settle(200, name -> List.of(Long.toString(cost)));
      }
      return null;
    });
    assertThat(big.named("tokens").check("many", 0).remaining()).isEqualTo(1_000_000 - stated.get());
  }

  @Test
  void passWithoutCostHeader_isAnError() {
    assertThatThrownBy(() -> rule("tokens", 1, RuleOptions.costHeader(null, true)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cost-header-pass applies to a rule with cost-header, and this rule has none");
  }
}

package dev.ratelimit.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.Concurrently;
import dev.ratelimit.http.builder.MissingKey;
import dev.ratelimit.limiter.RateLimiter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A rule's plan and condition, and settling {@code charge-on} rules: by status, or, for a request
 * whose client went away, by whether its handler had started (docs/design.md §2.7).
 */
class ChargesTest {
  private final ManualClock clock = new ManualClock(1_700_000_000_000L);
  private final RateLimiter limiter = RateLimiter.builder().clock(clock)
      .limit("search", "fixed-window rate=2 period=1h").onPlan("pro").limit("search", "fixed-window rate=4 period=1h")
      .limit("other", "fixed-window rate=10 period=1h").limit("race", "fixed-window rate=1000 period=1h")
      .limit("watch", "fixed-window rate=3 period=1h mode=shadow").build();

  /** A request with headers only. */
  private record FakeRequest(Map<String, String> headers) implements Request {
    @Override
    public String method() {
      return "GET";
    }

    @Override
    public String path() {
      return "/search";
    }

    @Override
    public String header(String name) {
      return headers.get(name);
    }

    @Override
    public List<String> headers(String name) {
      return headers.containsKey(name) ? List.of(headers.get(name)) : List.of();
    }

    @Override
    public String param(String name) {
      return null;
    }

    @Override
    public String peerAddress() {
      return "192.0.2.1";
    }

    @Override
    public String principal() {
      return null;
    }

    @Override
    public Object unwrap() {
      return this;
    }
  }

  private Rule rule(String limit, RequestKey key, RuleOptions options) {
    return Rule.of(UrlPattern.parse("/*"), limit, limiter.limits(), limiter.plans(), key, 1, options);
  }

  static Request request(String... headers) {
    Map<String, String> map = new java.util.HashMap<>();
    for (int i = 0; i < headers.length; i += 2) {
      map.put(headers[i], headers[i + 1]);
    }
    return new FakeRequest(map);
  }

  private int admittedOf(Rule[] rules, Request request) {
    int admitted = 0;
    for (int i = 0; i < 10; i++) {
      admitted += Charges.of(rules, request, MissingKey.GLOBAL)
          .spend(limiter, RateLimitHeaders.DEFAULT, new FakeResponse()).allowed() ? 1 : 0;
    }
    return admitted;
  }

  @Test
  void plan_chargesUnderThePlanItNames_nullOrUnknownIsTheDefault() {
    Rule[] rules = {rule("search", Keys.header("X-User"), new RuleOptions(null, null, r -> r.header("X-Plan"), null))};
    assertThat(admittedOf(rules, request("X-User", "free"))).isEqualTo(2);
    assertThat(admittedOf(rules, request("X-User", "paying", "X-Plan", "pro"))).isEqualTo(4);
    assertThat(admittedOf(rules, request("X-User", "hopeful", "X-Plan", "gold"))).isEqualTo(2);
    FakeResponse response = new FakeResponse();
    Charges.of(rules, request("X-User", "paying-2", "X-Plan", "pro"), MissingKey.GLOBAL)
        .spend(limiter, RateLimitHeaders.DEFAULT, response);
    assertThat(response.headers).containsEntry("RateLimit-Policy", "\"search\";q=4;w=3600")
        .containsEntry("X-RateLimit-Limit", "4");
  }

  @Test
  void plan_appliesAmongSeveralRulesToo() {
    Rule[] rules = {rule("search", Keys.header("X-User"), new RuleOptions(null, null, r -> "pro", null)),
        rule("other", Keys.header("X-User"), RuleOptions.NONE)};
    assertThat(admittedOf(rules, request("X-User", "ann"))).isEqualTo(4);
    FakeResponse response = new FakeResponse();
    Charges.of(rules, request("X-User", "bob"), MissingKey.GLOBAL).spend(limiter, RateLimitHeaders.DEFAULT, response);
    assertThat(response.headers.get("RateLimit-Policy")).isEqualTo("\"search\";q=4;w=3600, \"other\";q=10;w=3600");
  }

  @Test
  void conditionFalse_dropsTheRule_beforeItsKeyIsAskedFor() {
    AtomicInteger keysAsked = new AtomicInteger();
    RequestKey counted = r -> {
      keysAsked.incrementAndGet();
      return "k";
    };
    Rule[] rules = {rule("search", counted, new RuleOptions(null, null, null, r -> r.header("X-Internal") == null))};
    assertThat(Charges.of(rules, request("X-Internal", "1"), MissingKey.DENY).isEmpty()).isTrue();
    assertThat(Charges.of(rules, request("X-Internal", "1"), MissingKey.DENY).missingKey()).isNull();
    assertThat(keysAsked).hasValue(0);
    assertThat(Charges.of(rules, request(), MissingKey.GLOBAL).isEmpty()).isFalse();
    assertThat(keysAsked).hasValue(1);
    Rule[] two = {rules[0], rule("other", Keys.header("X-User"), RuleOptions.NONE)};
    FakeResponse response = new FakeResponse();
    Charges.of(two, request("X-Internal", "1", "X-User", "u"), MissingKey.GLOBAL)
        .spend(limiter, RateLimitHeaders.DEFAULT, response);
    assertThat(response.headers.get("RateLimit-Policy")).isEqualTo("\"other\";q=10;w=3600");
    assertThat(limiter.named("search").check("k", 0).remaining()).isEqualTo(2);
  }

  @Test
  void asyncSettlement_refundsWhatDoesNotCount_once_andACancelBeforeTheHandlerRefunds() throws Exception {
    Rule[] rules = {rule("search", Keys.header("X-User"), new RuleOptions(null, ChargeOn.parse("401"), null, null))};
    Charges.Verdict ok = spendAsync(rules, "ann");
    assertThat(limiter.named("search").check("ann", 0).remaining()).isEqualTo(1);
    ok.settlement().settle(200);
    assertThat(limiter.named("search").check("ann", 0).remaining()).isEqualTo(2);
    ok.settlement().settle(200);
    ok.settlement().cancel();
    assertThat(limiter.named("search").check("ann", 0).remaining()).isEqualTo(2);

    Charges.Verdict failed = spendAsync(rules, "ann");
    failed.settlement().settle(401);
    failed.settlement().cancel();
    assertThat(limiter.named("search").check("ann", 0).remaining()).isEqualTo(1);

    spendAsync(rules, "ann").settlement().cancel();
    assertThat(limiter.named("search").check("ann", 0).remaining()).isEqualTo(1);
  }

  /**
   * Rules charged together, one a shadow limit: a request its would-be denial admitted took
   * nothing from it, so refunding that request gives nothing back to it, blocking or not.
   */
  @Test
  void settlementOfRulesChargedTogether_givesAShadowLimitBackOnlyWhatItTook() throws Exception {
    for (boolean async : new boolean[] {false, true}) {
      String user = async ? "async-user" : "sync-user";
      Rule shadow = Rule.of(UrlPattern.parse("/*"), "watch", limiter.limits(), limiter.plans(), Keys.header("X-User"), 2,
          new RuleOptions(null, ChargeOn.parse("401"), null, null));
      Rule[] rules = {rule("other", Keys.header("X-User"), new RuleOptions(null, ChargeOn.parse("401"), null, null)), shadow};
      Charges.Verdict first = async ? spendAsync(rules, user) : Charges.of(rules, request("X-User", user), MissingKey.GLOBAL)
          .spend(limiter, RateLimitHeaders.DEFAULT, new FakeResponse());
      Charges.Verdict second = async ? spendAsync(rules, user) : Charges.of(rules, request("X-User", user), MissingKey.GLOBAL)
          .spend(limiter, RateLimitHeaders.DEFAULT, new FakeResponse());
      assertThat(second.allowed()).as("a shadow limit never denies").isTrue();
      assertThat(limiter.named("watch").check(user, 0).remaining()).as("only the first took 2 of 3").isEqualTo(1);

      second.settlement().settle(200); // not counted: refunded
      first.settlement().settle(401);  // counted: kept
      assertThat(limiter.named("watch").check(user, 0).remaining()).as(user).isEqualTo(1);
      assertThat(limiter.named("other").check(user, 0).remaining()).as(user).isEqualTo(9);
    }
  }

  @Test
  void asyncSettlement_underAPlan_refundsThePlansState() throws Exception {
    Rule[] rules = {rule("search", Keys.header("X-User"), new RuleOptions(null, ChargeOn.parse("4xx"), r -> "pro", null)),
        rule("other", Keys.header("X-User"), RuleOptions.NONE)};
    Charges.Verdict verdict = spendAsync(rules, "cid");
    assertThat(limiter.named("search").onPlan("pro").check("cid", 0).remaining()).isEqualTo(3);
    verdict.settlement().settle(204);
    assertThat(limiter.named("search").onPlan("pro").check("cid", 0).remaining()).isEqualTo(4);
    assertThat(limiter.named("other").check("cid", 0).remaining()).isEqualTo(9); // no charge-on: kept
  }

  @Test
  void cancel_beforeTheHandlerStarted_refunds_andTheHandlerMayNoLongerStart() throws Exception {
    Charges.Settlement settlement = spendAsync(failedLogins(false), "dee").settlement();
    assertThat(limiter.named("search").check("dee", 0).remaining()).isEqualTo(1);
    settlement.cancel();
    assertThat(limiter.named("search").check("dee", 0).remaining()).isEqualTo(2);
    assertThat(settlement.start()).as("a cancelled request's handler never runs").isFalse();
    settlement.settle(401);
    assertThat(limiter.named("search").check("dee", 0).remaining()).isEqualTo(2);
  }

  @Test
  void cancel_afterTheHandlerStarted_keepsTheCharge_whateverTheStatusLater() throws Exception {
    Charges.Settlement settlement = spendAsync(failedLogins(false), "eli").settlement();
    assertThat(settlement.start()).isTrue();
    settlement.cancel(); // the client hung up while the password was checked
    assertThat(limiter.named("search").check("eli", 0).remaining()).isEqualTo(1);
    settlement.settle(200); // the handler's answer, which no one received, changes nothing
    settlement.cancel();
    assertThat(limiter.named("search").check("eli", 0).remaining()).isEqualTo(1);
  }

  @Test
  void refundCancelled_refundsACancelAfterTheHandlerStarted_andAStatusStillCounts() throws Exception {
    Rule[] rules = failedLogins(true);
    Charges.Settlement cancelled = spendAsync(rules, "fay").settlement();
    assertThat(cancelled.start()).isTrue();
    cancelled.cancel();
    assertThat(limiter.named("search").check("fay", 0).remaining()).isEqualTo(2);
    Charges.Settlement answered = spendAsync(rules, "fay").settlement();
    assertThat(answered.start()).isTrue();
    answered.settle(401);
    answered.cancel();
    assertThat(limiter.named("search").check("fay", 0).remaining()).isEqualTo(1);
  }

  @Test
  void blockingSettlement_keepsAStartedCancelledCharge_throughItsPendingCharge() {
    Charges.Verdict verdict = Charges.of(failedLogins(false), request("X-User", "gus"), MissingKey.GLOBAL)
        .spend(limiter, RateLimitHeaders.DEFAULT, new FakeResponse());
    assertThat(verdict.settlement().start()).isTrue();
    verdict.settlement().cancel();
    assertThat(limiter.named("search").check("gus", 0).remaining()).isEqualTo(1);
    Charges.Verdict refunding = Charges.of(failedLogins(true), request("X-User", "gus"), MissingKey.GLOBAL)
        .spend(limiter, RateLimitHeaders.DEFAULT, new FakeResponse());
    assertThat(refunding.settlement().start()).isTrue();
    refunding.settlement().cancel();
    assertThat(limiter.named("search").check("gus", 0).remaining()).isEqualTo(1);
  }

  @Test
  void cancel_amongSeveralRules_refundsOnlyTheRulesThatRefundCancelled() throws Exception {
    Rule[] rules = {rule("search", Keys.header("X-User"), new RuleOptions(null, ChargeOn.parse("401"), null, null, true)),
        rule("race", Keys.header("X-User"), new RuleOptions(null, ChargeOn.parse("401"), null, null)),
        rule("other", Keys.header("X-User"), RuleOptions.NONE)};
    Charges.Settlement settlement = spendAsync(rules, "hal").settlement();
    assertThat(settlement.start()).isTrue();
    settlement.cancel();
    assertThat(limiter.named("search").check("hal", 0).remaining()).as("refund-cancelled").isEqualTo(2);
    assertThat(limiter.named("race").check("hal", 0).remaining()).as("charge-on only").isEqualTo(999);
    assertThat(limiter.named("other").check("hal", 0).remaining()).as("no charge-on").isEqualTo(9);
  }

  @Test
  void refundCancelled_withoutChargeOn_isAnError() {
    assertThatThrownBy(() -> rule("search", Keys.header("X-User"), new RuleOptions(null, null, null, null, true)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("refund-cancelled applies to a rule with charge-on, and this rule has none");
  }

  /**
   * The handler starting and the client going away at once, on two threads, 500 times: each
   * request ends charged exactly when its handler started, never both refunded and run.
   */
  @Test
  void startRacingCancel_chargesExactlyTheRequestsWhoseHandlerStarted() throws Exception {
    Rule[] rules = {rule("race", Keys.header("X-User"), new RuleOptions(null, ChargeOn.parse("401"), null, null))};
    List<Charges.Settlement> settlements = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      settlements.add(spendAsync(rules, "ivy").settlement());
    }
    AtomicInteger started = new AtomicInteger();
    Concurrently.runAll(List.of(() -> {
      for (Charges.Settlement settlement : settlements) {
        started.addAndGet(settlement.start() ? 1 : 0);
      }
      return null;
    }, () -> {
      settlements.forEach(Charges.Settlement::cancel);
      return null;
    }));
    assertThat(limiter.named("race").check("ivy", 0).remaining()).isEqualTo(1000 - started.get());
  }

  /** A {@code charge-on=401} rule on "search" (2 per hour), refunding cancelled requests or not. */
  private Rule[] failedLogins(boolean refundCancelled) {
    return new Rule[] {rule("search", Keys.header("X-User"),
        new RuleOptions(null, ChargeOn.parse("401"), null, null, refundCancelled ? true : null))};
  }

  private Charges.Verdict spendAsync(Rule[] rules, String user) throws Exception {
    Charges.Verdict verdict = Charges.of(rules, request("X-User", user), MissingKey.GLOBAL)
        .spendAsync(limiter, RateLimitHeaders.DEFAULT, new FakeResponse()).toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThat(verdict.allowed()).isTrue();
    assertThat(verdict.settlement()).isNotNull();
    return verdict;
  }
}

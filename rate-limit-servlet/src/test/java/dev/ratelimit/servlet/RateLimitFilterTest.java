package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.SwitchableStore;
import dev.ratelimit.http.Keys;
import dev.ratelimit.http.builder.MissingKey;
import dev.ratelimit.limiter.RateLimiter;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class RateLimitFilterTest {
  private final ManualClock clock = new ManualClock(1_700_000_000_000L);

  private RateLimiter limiter(String... namesAndSpecs) {
    RateLimiter.Builder builder = RateLimiter.builder().clock(clock);
    for (int i = 0; i < namesAndSpecs.length; i += 2) {
      builder.limit(namesAndSpecs[i], namesAndSpecs[i + 1]);
    }
    return builder.build();
  }

  /** What one request through the filter ends in. */
  private record Outcome(int status, boolean passed, java.util.Map<String, String> headers, String body) {}

  private static Outcome send(RateLimitFilter filter, FakeHttp.Request request) throws IOException, ServletException {
    return send(filter, request.build());
  }

  private static Outcome send(RateLimitFilter filter, HttpServletRequest request) throws IOException, ServletException {
    FakeHttp.Response response = new FakeHttp.Response();
    FakeHttp.Chain chain = new FakeHttp.Chain();
    filter.doFilter(request, response.build(), chain);
    return new Outcome(response.status, chain.calls == 1, response.headers, response.body());
  }

  private static FakeHttp.Request get(String path, String key) {
    return new FakeHttp.Request().path(path).header("X-Key", key);
  }

  @Test
  void filter_admitsCapacityThenAnswers429WithRetryAfterAndProblemBody() throws Exception {
    RateLimitFilter filter = RateLimitFilter.builder().clock(clock)
        .limit("api", "token-bucket rate=3 period=1m").rule("/api/*", "api", "header:X-Key", 1).build();
    for (int i = 2; i >= 0; i--) {
      Outcome admitted = send(filter, get("/api/users", "alice"));
      assertThat(admitted.passed()).isTrue();
      assertThat(admitted.headers()).contains(entry("X-RateLimit-Limit", "3"),
          entry("X-RateLimit-Remaining", Integer.toString(i)), entry("RateLimit-Policy", "\"api\";q=3;w=60"),
          entry("RateLimit", "\"api\";r=" + i + ";t=" + (3 - i) * 20));
    }
    Outcome denied = send(filter, get("/api/users", "alice"));
    assertThat(denied.passed()).isFalse();
    assertThat(denied.status()).isEqualTo(429);
    assertThat(denied.headers()).contains(entry("Retry-After", "20"), entry("X-RateLimit-Remaining", "0"),
        entry("X-RateLimit-Reset", "60"), entry("RateLimit", "\"api\";r=0;t=60"));
    assertThat(denied.body()).isEqualTo("{\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\","
        + "\"title\":\"Too Many Requests\",\"status\":429,\"detail\":\"Rate limit 'api' exceeded; retry in 20 s\","
        + "\"instance\":\"/api/users\",\"limit\":\"api\",\"retryAfter\":20}");
  }

  @Test
  void filter_retryAfterIsWholeSecondsNeverEarlierThanTheDecision() throws Exception {
    RateLimitFilter filter = RateLimitFilter.builder().clock(clock)
        .limit("api", "token-bucket rate=3 period=10s").rule("/*", "api", "header:X-Key", 1).build();
    for (int i = 0; i < 3; i++) {
      send(filter, get("/", "k"));
    }
    Outcome denied = send(filter, get("/", "k"));
    assertThat(denied.headers()).containsEntry("Retry-After", "4"); // the decision says 3334 ms
    clock.advanceMillis(3333);
    assertThat(send(filter, get("/", "k")).status()).isEqualTo(429);
    clock.advanceMillis(1);
    assertThat(send(filter, get("/", "k")).passed()).isTrue();
  }

  @Test
  void filter_retryAfterIsAtLeastOneSecond() throws Exception {
    RateLimitFilter filter = RateLimitFilter.builder().clock(clock)
        .limit("api", "token-bucket rate=100 period=1s capacity=1").rule("/*", "api", "header:X-Key", 1).build();
    send(filter, get("/", "k"));
    Outcome denied = send(filter, get("/", "k"));
    assertThat(denied.headers()).containsEntry("Retry-After", "1");
    assertThat(denied.body()).contains("\"retryAfter\":1}");
  }

  @Test
  void filter_keysAreIsolated() throws Exception {
    RateLimitFilter filter = RateLimitFilter.builder().clock(clock)
        .limit("api", "token-bucket rate=1 period=1h").rule("/*", "api", "header:X-Key", 1).build();
    assertThat(send(filter, get("/", "alice")).passed()).isTrue();
    assertThat(send(filter, get("/", "alice")).status()).isEqualTo(429);
    assertThat(send(filter, get("/", "bob")).passed()).isTrue();
  }

  @Test
  void filter_multipleRulesAreAllOrNothing() throws Exception {
    RateLimiter limiter = limiter("api", "token-bucket rate=10 period=1h", "burst", "token-bucket rate=2 period=1h");
    RateLimitFilter filter = RateLimitFilter.builder().limiter(limiter)
        .rule("/api/*", "api", "header:X-Key", 1).rule("/api/*", "burst", "header:X-Key", 1).build();
    assertThat(send(filter, get("/api/a", "k")).headers()).contains(entry("X-RateLimit-Limit", "2"),
        entry("X-RateLimit-Remaining", "1"), entry("RateLimit-Policy", "\"api\";q=10;w=3600, \"burst\";q=2;w=3600"),
        entry("RateLimit", "\"api\";r=9;t=360, \"burst\";r=1;t=1800"));
    send(filter, get("/api/a", "k"));
    Outcome denied = send(filter, get("/api/a", "k"));
    assertThat(denied.status()).isEqualTo(429);
    assertThat(denied.body()).contains("\"limit\":\"burst\"");
    assertThat(denied.headers()).contains(entry("RateLimit", "\"api\";r=8;t=720, \"burst\";r=0;t=3600"));
    assertThat(limiter.named("api").check("k", 0).remaining()).as("the denial took nothing from 'api'").isEqualTo(8);
  }

  @Test
  void filter_passesRequestsMatchingNoRuleUntouched() throws Exception {
    RateLimitFilter filter = RateLimitFilter.builder().clock(clock)
        .limit("api", "token-bucket rate=1 period=1h").rule("/api/*", "api", "header:X-Key", 1).build();
    Outcome outcome = send(filter, get("/static/app.js", "k"));
    assertThat(outcome.passed()).isTrue();
    assertThat(outcome.headers()).isEmpty();
  }

  @Test
  void filter_defaultPatternAppliesOnlyWhenNoOtherRuleMatches() throws Exception {
    RateLimiter limiter = limiter("api", "token-bucket rate=10 period=1h", "other", "token-bucket rate=5 period=1h");
    RateLimitFilter filter = RateLimitFilter.builder().limiter(limiter)
        .rule("/api/*", "api", "header:X-Key", 1).rule("/", "other", "header:X-Key", 1).build();
    assertThat(send(filter, get("/api/x", "k")).headers()).containsEntry("RateLimit-Policy", "\"api\";q=10;w=3600");
    assertThat(send(filter, get("/x", "k")).headers()).containsEntry("RateLimit-Policy", "\"other\";q=5;w=3600");
  }

  @Test
  void filter_countsOncePerRequestAcrossDispatches() throws Exception {
    RateLimiter limiter = limiter("api", "token-bucket rate=10 period=1h");
    RateLimitFilter filter = RateLimitFilter.builder().limiter(limiter).rule("/*", "api", "header:X-Key", 1).build();
    HttpServletRequest request = get("/a", "k").build();
    assertThat(send(filter, request).passed()).isTrue();
    // the same request again, as on a forward, include, error or async dispatch
    Outcome again = send(filter, request);
    assertThat(again.passed()).isTrue();
    assertThat(again.headers()).isEmpty();
    assertThat(limiter.named("api").check("k", 0).remaining()).isEqualTo(9);
  }

  @Test
  void filter_twoFiltersOnOneRequestEachCount() throws Exception {
    RateLimiter limiter = limiter("api", "token-bucket rate=10 period=1h", "all", "token-bucket rate=10 period=1h");
    RateLimitFilter first = RateLimitFilter.builder().limiter(limiter).rule("/*", "api", "header:X-Key", 1).build();
    RateLimitFilter second = RateLimitFilter.builder().limiter(limiter).rule("/*", "all", "header:X-Key", 1).build();
    HttpServletRequest request = get("/a", "k").build();
    FakeHttp.Response response = new FakeHttp.Response();
    first.doFilter(request, response.build(), new FakeHttp.Chain());
    second.doFilter(request, response.build(), new FakeHttp.Chain());
    assertThat(response.headers).as("the second filter's headers replace the first's")
        .containsEntry("RateLimit-Policy", "\"all\";q=10;w=3600");
    assertThat(limiter.named("api").check("k", 0).remaining()).isEqualTo(9);
    assertThat(limiter.named("all").check("k", 0).remaining()).isEqualTo(9);
  }

  @Test
  void filter_missingKeyGlobalSharesTheEmptyKey() throws Exception {
    RateLimiter limiter = limiter("api", "token-bucket rate=10 period=1h");
    RateLimitFilter filter = RateLimitFilter.builder().limiter(limiter).rule("/*", "api", "header:X-Key", 1).build();
    assertThat(send(filter, new FakeHttp.Request().path("/a")).passed()).isTrue();
    assertThat(send(filter, new FakeHttp.Request().path("/a").header("X-Key", "  ")).passed()).isTrue();
    assertThat(limiter.named("api").check("", 0).remaining()).isEqualTo(8);
  }

  @Test
  void filter_missingKeySkipDropsOnlyThatRule() throws Exception {
    RateLimiter limiter = limiter("api", "token-bucket rate=10 period=1h", "users", "token-bucket rate=10 period=1h");
    RateLimitFilter filter = RateLimitFilter.builder().limiter(limiter).missingKey(MissingKey.SKIP)
        .rule("/*", "api", "ip", 1).rule("/*", "users", "principal", 1).build();
    Outcome anonymous = send(filter, new FakeHttp.Request().path("/a").from("198.51.100.4"));
    assertThat(anonymous.passed()).isTrue();
    assertThat(anonymous.headers()).containsEntry("RateLimit-Policy", "\"api\";q=10;w=3600");
    assertThat(limiter.named("users").check("", 0).remaining()).isEqualTo(10);
    send(filter, new FakeHttp.Request().path("/a").from("198.51.100.4").user("alice"));
    assertThat(limiter.named("users").check("alice", 0).remaining()).isEqualTo(9);
    assertThat(limiter.named("api").check("198.51.100.4", 0).remaining()).isEqualTo(8);
  }

  @Test
  void filter_missingKeySkipOnTheOnlyRulePassesUntouched() throws Exception {
    RateLimitFilter filter = RateLimitFilter.builder().clock(clock).limit("api", "10/1h").missingKey(MissingKey.SKIP)
        .rule("/*", "api", "param:user", 1).build();
    Outcome outcome = send(filter, new FakeHttp.Request().path("/login"));
    assertThat(outcome.passed()).isTrue();
    assertThat(outcome.headers()).isEmpty();
  }

  @Test
  void filter_missingKeyDenyAnswers400NamingTheKey() throws Exception {
    RateLimiter limiter = limiter("login", "token-bucket rate=5 period=15m");
    RateLimitFilter filter = RateLimitFilter.builder().limiter(limiter).missingKey(MissingKey.DENY)
        .rule("/login", "login", "param:user", 1).build();
    Outcome denied = send(filter, new FakeHttp.Request().path("/login"));
    assertThat(denied.passed()).isFalse();
    assertThat(denied.status()).isEqualTo(400);
    assertThat(denied.body()).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Bad Request\",\"status\":400,"
        + "\"detail\":\"Rate limit 'login' needs a key from param:user, and the request has none\","
        + "\"instance\":\"/login\",\"limit\":\"login\",\"key\":\"param:user\"}");
    assertThat(send(filter, new FakeHttp.Request().path("/login").param("user", "bob")).passed()).isTrue();
    assertThat(limiter.named("login").check("bob", 0).remaining()).isEqualTo(4);
  }

  @Test
  void filter_storeUnavailableWithClosedPolicyAnswers503() throws Exception {
    RateLimitFilter filter = RateLimitFilter.builder().clock(clock).store(SwitchableStore.unavailable())
        .storeFailure(FailurePolicy.CLOSED).limit("api", "10/1m").rule("/*", "api", "header:X-Key", 1).build();
    Outcome outcome = send(filter, get("/a", "k"));
    assertThat(outcome.passed()).isFalse();
    assertThat(outcome.status()).isEqualTo(503);
    assertThat(outcome.headers()).containsOnly(entry("Retry-After", "1"));
    assertThat(outcome.body()).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Service Unavailable\",\"status\":503,"
        + "\"detail\":\"Rate limit 'api' can't be checked: its store is unavailable; retry in 1 s\","
        + "\"instance\":\"/a\",\"limit\":\"api\",\"retryAfter\":1}");
  }

  @Test
  void filter_storeUnavailableNamesTheClosedLimit() throws Exception {
    RateLimitFilter filter = RateLimitFilter.builder().clock(clock).store(SwitchableStore.unavailable())
        .storeFailure(FailurePolicy.OPEN).limit("api", "10/1m").limit("strict", "10/1m failure=closed")
        .rule("/*", "api", "header:X-Key", 1).rule("/*", "strict", "header:X-Key", 1).build();
    Outcome outcome = send(filter, get("/a", "k"));
    assertThat(outcome.status()).isEqualTo(503);
    assertThat(outcome.body()).contains("\"limit\":\"strict\"");
  }

  @Test
  void filter_storeUnavailableWithOpenPolicyAdmits() throws Exception {
    RateLimitFilter filter = RateLimitFilter.builder().clock(clock).store(SwitchableStore.unavailable())
        .storeFailure(FailurePolicy.OPEN).limit("api", "10/1m").rule("/*", "api", "header:X-Key", 1).build();
    assertThat(send(filter, get("/a", "k")).passed()).isTrue();
  }

  @Test
  void filter_hashesLongKeysBeforeTheStore() throws Exception {
    RateLimiter limiter = limiter("api", "token-bucket rate=10 period=1h");
    RateLimitFilter filter = RateLimitFilter.builder().limiter(limiter).rule("/*", "api", "header:X-Key", 1).build();
    String huge = "k".repeat(100_000);
    send(filter, get("/a", huge));
    String hashed = "sha256:" + HexFormat.of().formatHex(
        MessageDigest.getInstance("SHA-256").digest(huge.getBytes(StandardCharsets.UTF_8)));
    assertThat(limiter.named("api").check(hashed, 0).remaining()).isEqualTo(9);
    assertThat(limiter.named("api").check(huge, 0).remaining())
        .as("the limiter bounds a programmatic key the same way: one bucket").isEqualTo(9);
    String fits = "é".repeat(128); // 256 bytes: kept as it is
    send(filter, get("/a", fits));
    assertThat(limiter.named("api").check(fits, 0).remaining()).isEqualTo(9);
  }

  @Test
  void bounded_keepsKeysUpTo256Utf8Bytes() {
    assertThat(Keys.bounded("a".repeat(256))).isEqualTo("a".repeat(256));
    assertThat(Keys.bounded("a".repeat(257))).startsWith("sha256:").hasSize(71);
    assertThat(Keys.bounded("é".repeat(129))).startsWith("sha256:");
    assertThat(Keys.bounded("\uD83D\uDE00".repeat(64))).doesNotStartWith("sha256:"); // 64 × 4 bytes
    assertThat(Keys.bounded("\uD83D\uDE00".repeat(65))).startsWith("sha256:");
  }

  @Test
  void filter_ipKeyGroupsIpv6ClientsBy64() throws Exception {
    RateLimiter limiter = limiter("api", "token-bucket rate=2 period=1h");
    RateLimitFilter filter = RateLimitFilter.builder().limiter(limiter).rule("/*", "api").build();
    send(filter, new FakeHttp.Request().from("2001:db8:1:2::1"));
    send(filter, new FakeHttp.Request().from("2001:db8:1:2:ffff::9"));
    assertThat(send(filter, new FakeHttp.Request().from("2001:db8:1:2::77")).status()).isEqualTo(429);
    assertThat(send(filter, new FakeHttp.Request().from("2001:db8:1:3::1")).passed()).isTrue();
  }

  @Test
  void filter_ipKeyBelievesOnlyTrustedProxies() throws Exception {
    RateLimiter limiter = limiter("api", "token-bucket rate=5 period=1h");
    RateLimitFilter filter = RateLimitFilter.builder().limiter(limiter).trustedProxies("10.0.0.0/8")
        .rule("/*", "api", "ip", 1).build();
    send(filter, new FakeHttp.Request().from("10.0.0.1").header("X-Forwarded-For", "198.51.100.1"));
    send(filter, new FakeHttp.Request().from("203.0.113.9").header("X-Forwarded-For", "198.51.100.1"));
    assertThat(limiter.named("api").check("198.51.100.1", 0).remaining()).isEqualTo(4);
    assertThat(limiter.named("api").check("203.0.113.9", 0).remaining()).isEqualTo(4);
  }

  @Test
  void filter_ipKeyReadsOnlyTheForwardedHeaderChosen() throws Exception {
    RateLimiter limiter = limiter("api", "token-bucket rate=2 period=1h");
    RateLimitFilter filter = RateLimitFilter.builder().limiter(limiter).forwardedHeader("x-real-ip")
        .trustedProxies("10.0.0.0/8").rule("/*", "api", "ip", 1).build();
    for (int i = 0; i < 10; i++) {
      send(filter, new FakeHttp.Request().from("10.0.0.1").header("X-Real-IP", "203.0.113.9")
          .header("X-Forwarded-For", "198.51.100." + i).header("Forwarded", "for=198.51.100." + i));
    }
    assertThat(limiter.named("api").check("203.0.113.9", 0).remaining()).isZero();
    assertThat(limiter.named("api").check("198.51.100.1", 0).remaining()).isEqualTo(2);
  }

  @Test
  void builder_trustsEveryAddressOnlyWhenAllowedFirst() throws Exception {
    RateLimiter limiter = limiter("api", "token-bucket rate=5 period=1h");
    assertThatThrownBy(() -> RateLimitFilter.builder().limiter(limiter).trustedProxies("::/0"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("trusted proxy entry '::/0' trusts every"
            + " IPv6 address");
    assertThatThrownBy(() -> RateLimitFilter.builder().limiter(limiter).trustAllProxies().trustedProxies("10.0.0.0/8")
        .rule("/*", "api").build())
        .isInstanceOf(IllegalStateException.class).hasMessageStartingWith("trust-all-proxies is set, and no trusted");
    RateLimitFilter filter = RateLimitFilter.builder().limiter(limiter).trustAllProxies()
        .trustedProxies("0.0.0.0/0").rule("/*", "api").build();
    send(filter, new FakeHttp.Request().from("198.51.100.7").header("X-Forwarded-For", "203.0.113.9"));
    assertThat(limiter.named("api").check("203.0.113.9", 0).remaining()).isEqualTo(4);
  }

  /** Spellings of one user name a person would write, and an attacker would try. */
  private static final String[] ALICES = {"alice", "Alice", " alice ", "alice\u0000", "\u00A0ALICE\t", "alice\u200B",
      "\uFF41\uFF4C\uFF49\uFF43\uFF45"};

  @Test
  void filter_keyOptionsMakeSpellingsOfOneNameOneBucket() throws Exception {
    RateLimiter limiter = limiter("login", "token-bucket rate=3 period=1h");
    RateLimitFilter filter = RateLimitFilter.builder().limiter(limiter)
        .rule("/login", "login", "param:user|lower|trim|nfkc", 1).build();
    int admitted = 0;
    for (String alice : ALICES) {
      admitted += send(filter, new FakeHttp.Request().path("/login").param("user", alice)).passed() ? 1 : 0;
    }
    assertThat(admitted).isEqualTo(3);
    assertThat(limiter.named("login").check("alice", 0).remaining()).isZero();
  }

  @Test
  void filter_withoutKeyOptionsSpellingsStayApart() throws Exception {
    RateLimiter limiter = limiter("login", "token-bucket rate=1 period=1h");
    RateLimitFilter filter = RateLimitFilter.builder().limiter(limiter).rule("/login", "login", "param:user", 1).build();
    for (String alice : ALICES) {
      assertThat(send(filter, new FakeHttp.Request().path("/login").param("user", alice)).passed()).as(alice).isTrue();
    }
    // and each option alone does only its part: trim keeps case, lower keeps the spaces
    RateLimiter trimmed = limiter("login", "token-bucket rate=5 period=1h");
    RateLimitFilter trim = RateLimitFilter.builder().limiter(trimmed).rule("/*", "login", "header:X-User|trim", 1).build();
    send(trim, new FakeHttp.Request().path("/").header("X-User", " Alice\t"));
    assertThat(trimmed.named("login").check("Alice", 0).remaining()).isEqualTo(4);
    RateLimiter lowered = limiter("login", "token-bucket rate=5 period=1h");
    RateLimitFilter lower = RateLimitFilter.builder().limiter(lowered).rule("/*", "login", "header:X-User|lower", 1).build();
    send(lower, new FakeHttp.Request().path("/").header("X-User", " Alice "));
    assertThat(lowered.named("login").check(" alice ", 0).remaining()).isEqualTo(4);
  }

  @Test
  void filter_normalisesHugeKeysBeforeHashingThem() throws Exception {
    RateLimiter limiter = limiter("api", "token-bucket rate=10 period=1h");
    RateLimitFilter filter = RateLimitFilter.builder().limiter(limiter)
        .rule("/*", "api", "header:X-Key|nfkc|trim|lower", 1).build();
    String huge = "K".repeat(1_000_000);
    send(filter, get("/a", "\t" + huge + " "));
    send(filter, get("/a", huge.toLowerCase(java.util.Locale.ROOT)));
    String hashed = "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
        .digest(huge.toLowerCase(java.util.Locale.ROOT).getBytes(StandardCharsets.UTF_8)));
    assertThat(limiter.named("api").check(hashed, 0).remaining()).isEqualTo(8);
  }

  @Test
  void filter_keyNothingIsLeftOfAfterTrimIsMissing() throws Exception {
    RateLimitFilter filter = RateLimitFilter.builder().clock(clock).limit("login", "10/1h").missingKey(MissingKey.DENY)
        .rule("/login", "login", "param:user|trim", 1).build();
    Outcome outcome = send(filter, new FakeHttp.Request().path("/login").param("user", "\u0000\u200B \t"));
    assertThat(outcome.status()).isEqualTo(400);
    assertThat(outcome.body()).contains("\"key\":\"param:user|trim\"");
  }

  @Test
  void filter_chargesTheRulesCost() throws Exception {
    RateLimiter limiter = limiter("tokens", "token-bucket rate=10 period=1h");
    RateLimitFilter filter = RateLimitFilter.builder().limiter(limiter).rule("/*", "tokens", "header:X-Key", 2.5).build();
    send(filter, get("/", "k"));
    assertThat(limiter.named("tokens").check("k", 0).remaining()).isEqualTo(7.5);
    assertThat(send(filter, get("/", "k")).headers()).containsEntry("X-RateLimit-Remaining", "5");
  }

  @Test
  void filter_epochResetFollowsTheLimitersClock() throws Exception {
    RateLimitFilter filter = RateLimitFilter.builder().clock(clock).headers("legacy,epoch")
        .limit("api", "token-bucket rate=1 period=10s").rule("/*", "api", "header:X-Key", 1).build();
    clock.advance(Duration.ofMillis(500));
    assertThat(send(filter, get("/", "k")).headers()).containsOnly(entry("X-RateLimit-Limit", "1"),
        entry("X-RateLimit-Remaining", "0"), entry("X-RateLimit-Reset", "1700000011"));
  }

  @Test
  void builder_refusesAmbiguousOrEmptyConfiguration() {
    RateLimiter limiter = limiter("api", "10/1m");
    assertThatThrownBy(() -> RateLimitFilter.builder().limiter(limiter).limit("x", "1/1s").rule("/*", "api").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("give either a limiter or limits (with clock, store, storeFailure), not both");
    assertThatThrownBy(() -> RateLimitFilter.builder().limiter(limiter).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("no rules: a rate limit filter without rules would limit nothing");
    assertThatThrownBy(() -> RateLimitFilter.builder().limiter(limiter).rule("/*", "apii").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rule '/* apii': unknown limit 'apii'; configured limits: api");
    assertThatThrownBy(() -> RateLimitFilter.builder().limiter(limiter).rule("/*", "api", "cookie:x", 1).build())
        .hasMessageStartingWith("rule '/* api': unknown key kind 'cookie:x'; allowed: ip, header:NAME");
    assertThatThrownBy(() -> RateLimitFilter.builder().rule("api/*", "api"))
        .hasMessageStartingWith("bad url-pattern 'api/*'");
  }

  @Test
  void rule_withAPathPredicate_limitsTheRequestsItMatches() throws Exception {
    RateLimitFilter filter = RateLimitFilter.builder().clock(clock).limit("api", "token-bucket rate=1 period=1m")
        .rule("/api/**", path -> path.startsWith("/api/"), "api", "header:X-Key", 1).build();
    assertThat(send(filter, get("/api/v1/users", "alice")).passed()).isTrue();
    assertThat(send(filter, get("/api/v2/orders", "alice")).status()).isEqualTo(429);
    Outcome elsewhere = send(filter, get("/health", "alice"));
    assertThat(elsewhere.passed()).isTrue();
    assertThat(elsewhere.headers()).doesNotContainKey("X-RateLimit-Limit");
  }

  @Test
  void responses_answerADecisionMadeOutsideTheFilterAsTheFilterWould() throws Exception {
    RateLimiter limiter = limiter("api", "token-bucket rate=3 period=1m", "day", "quota rate=100 cadence=day");
    RateLimitResponses responses = new RateLimitResponses(limiter, "legacy,ietf");
    limiter.named("api").limit("k", 3);
    dev.ratelimit.Decision denied = limiter.named("api").limit("k", 1);
    FakeHttp.Response response = new FakeHttp.Response();
    responses.rateLimited(new FakeHttp.Request().path("/send").build(), response.build(), "api", denied);
    assertThat(response.status).isEqualTo(429);
    assertThat(response.headers).contains(entry("Retry-After", "20"), entry("X-RateLimit-Remaining", "0"),
        entry("RateLimit-Policy", "\"api\";q=3;w=60"), entry("RateLimit", "\"api\";r=0;t=60"));
    assertThat(response.body()).contains("\"status\":429").contains("\"limit\":\"api\"").contains("\"retryAfter\":20");

    FakeHttp.Response both = new FakeHttp.Response();
    dev.ratelimit.limiter.Decisions decisions = limiter.limitAll(limiter.named("day").call("k"),
        limiter.named("api").call("other"));
    responses.headers(both.build(), java.util.List.of("day", "api"), decisions);
    assertThat(both.headers).contains(entry("RateLimit-Policy", "\"day\";q=100, \"api\";q=3;w=60"),
        entry("X-RateLimit-Remaining", "2"));
    assertThatThrownBy(() -> new RateLimitResponses(limiter, "fancy"))
        .hasMessageContaining("unknown header family 'fancy'");
  }
}

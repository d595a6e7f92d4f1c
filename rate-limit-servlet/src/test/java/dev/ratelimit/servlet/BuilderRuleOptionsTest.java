package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.ManualClock;
import dev.ratelimit.limiter.RateLimiter;
import java.util.Objects;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The builder's per-rule options (the rule line's own parsing is tested in rate-limit-http's RuleLineTest). */
class BuilderRuleOptionsTest {
  private final ManualClock clock = new ManualClock(1_700_000_000_000L);

  @Test
  void builder_optionsNeedARuleFirst() {
    assertThatThrownBy(() -> RateLimitFilter.builder().methods("POST"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("add a rule first");
    assertThatThrownBy(() -> RateLimitFilter.builder().chargeOn("4xx"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("add a rule first");
    assertThatThrownBy(() -> RateLimitFilter.builder().plan(request -> "pro"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("add a rule first");
    assertThatThrownBy(() -> RateLimitFilter.builder().condition(request -> true))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("add a rule first");
    assertThatThrownBy(() -> RateLimitFilter.builder().refundCancelled())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("add a rule first");
  }

  @Test
  void refundCancelled_needsChargeOn_inEitherOrder() {
    assertThatThrownBy(() -> RateLimitFilter.builder().limit("login", "fixed-window rate=5 period=15m")
        .rule("/login", "login").refundCancelled().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rule '/login login': refund-cancelled applies to a rule with charge-on, and this rule has none");
    RateLimitFilter.builder().limit("login", "fixed-window rate=5 period=15m")
        .rule("/login", "login").refundCancelled().chargeOn("401").build().destroy();
  }

  @Test
  void plan_choosesThePlanPerRequest_andConditionWhetherTheRuleApplies() throws Exception {
    RateLimiter limiter = RateLimiter.builder().clock(clock).limit("api", "fixed-window rate=1 period=1h")
        .onPlan("pro").limit("api", "fixed-window rate=3 period=1h").build();
    RateLimitFilter filter = RateLimitFilter.builder().limiter(limiter)
        .rule("/api/*", "api", "header:X-Key", 1)
        .plan(request -> request.getHeader("X-Plan"))
        .condition(request -> !Objects.equals(request.getHeader("X-Internal"), "yes"))
        .build();
    assertThat(admittedOf(filter, () -> new FakeHttp.Request().path("/api/x").header("X-Key", "free"))).isEqualTo(1);
    assertThat(admittedOf(filter,
        () -> new FakeHttp.Request().path("/api/x").header("X-Key", "paid").header("X-Plan", "pro"))).isEqualTo(3);
    Supplier<FakeHttp.Request> internal =
        () -> new FakeHttp.Request().path("/api/x").header("X-Key", "free").header("X-Internal", "yes");
    assertThat(admittedOf(filter, internal)).isEqualTo(5);
    FakeHttp.Response response = new FakeHttp.Response();
    filter.doFilter(internal.get().build(), response.build(), new FakeHttp.Chain());
    assertThat(response.headers).doesNotContainKey("X-RateLimit-Limit");
  }

  /** How many of 5 requests pass (each a new one: the filter marks a request it counted). */
  private static int admittedOf(RateLimitFilter filter, Supplier<FakeHttp.Request> request) throws Exception {
    int passed = 0;
    for (int i = 0; i < 5; i++) {
      FakeHttp.Chain chain = new FakeHttp.Chain();
      filter.doFilter(request.get().build(), new FakeHttp.Response().build(), chain);
      passed += chain.calls;
    }
    return passed;
  }
}

package dev.ratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A named limit with a spec per plan, chosen per call. */
class PlansTest {
  private final ManualClock clock = new ManualClock(1_767_225_600_000L);

  private RateLimiter limiter() {
    return RateLimiter.builder().clock(clock)
        .limit("api", "fixed-window rate=2 period=1h")
        .onPlan("pro").limit("api", "fixed-window rate=5 period=1h")
        .build();
  }

  @Test
  void plan_decidesOnItsOwnSpec_theDefaultPlanOnTheLimitsSpec() {
    RateLimiter limiter = limiter();
    assertThat(limiter.named("api").onPlan("pro").limit("alice", 5).allowed()).isTrue();
    assertThat(limiter.named("api").onPlan("pro").limit("alice", 1).allowed()).isFalse();
    assertThat(limiter.named("api").onPlan(null).limit("bob", 2).allowed()).isTrue();
    assertThat(limiter.named("api").limit("bob", 1).allowed()).isFalse();
    assertThat(limiter.named("api").onPlan("pro").check("carol", 1).limit()).isEqualTo(5);
    assertThat(limiter.limitAll(List.of(limiter.named("api").onPlan("pro").call("dave", 4))).allowed()).isTrue();
    assertThat(limiter.plans()).isEqualTo(Map.of("api", Map.of("pro", Limit.parse("fixed-window rate=5 period=1h"))));
  }

  @Test
  void plan_sharesTheKeysStateWithTheDefaultPlan_usedUnitsCappedByTheCapacity() {
    RateLimiter limiter = limiter();
    assertThat(limiter.named("api").limit("alice", 1).allowed()).isTrue();
    assertThat(limiter.named("api").onPlan("pro").check("alice", 0).remaining()).as("an upgrade keeps what was used").isEqualTo(4);
    assertThat(limiter.named("api").onPlan("pro").limit("alice", 4).allowed()).isTrue();
    assertThat(limiter.named("api").check("alice", 0).remaining()).as("a downgrade: 5 used, capped by 2").isEqualTo(0);
    assertThat(limiter.named("api").onPlan("pro").check("alice", 0).remaining()).as("back up: a check wrote nothing").isEqualTo(0);
  }

  @Test
  void plan_oneKeyUnderTwoSharingPlansInOneAllOrNothingCall_isRefused() {
    RateLimiter limiter = limiter();
    assertThatThrownBy(() -> limiter.limitAll(List.of(limiter.named("api").call("alice", 1),
        limiter.named("api").onPlan("pro").call("alice", 1))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("an all-or-nothing call names one key of limit 'api' under two plans, which share its state; "
            + "name it once");
    assertThat(limiter.named("api").check("alice", 0).remaining()).as("nothing taken").isEqualTo(2);
    assertThat(limiter.limitAll(List.of(limiter.named("api").call("alice", 1), limiter.named("api").onPlan("pro").call("bob", 1)))
        .allowed()).as("other keys").isTrue();
  }

  @Test
  void plan_ofAnotherKind_keepsAStateOfItsOwn() {
    RateLimiter limiter = RateLimiter.builder().clock(clock).limit("api", "fixed-window rate=2 period=1h")
        .onPlan("pro").limit("api", "sliding-window rate=5 period=1h").build();
    assertThat(limiter.named("api").onPlan("pro").limit("alice", 5).allowed()).isTrue();
    assertThat(limiter.named("api").limit("alice", 2).allowed()).isTrue();
    assertThat(limiter.named("api").limit("alice", 1).allowed()).isFalse();
  }

  @Test
  void plan_onAStoreThatCantShareTheState_isAnErrorAtBuild() {
    dev.ratelimit.store.RateLimitStore plain = new dev.ratelimit.store.RateLimitStore() {
      private final dev.ratelimit.store.InMemoryStore inner = new dev.ratelimit.store.InMemoryStore(clock);

      @Override
      public dev.ratelimit.store.KeySpace bind(String name, Limit limit) {
        return inner.bind(name, limit);
      }
    };
    RateLimiter.Builder builder = RateLimiter.builder().clock(clock).store(plain)
        .limit("api", "fixed-window rate=2 period=1h").onPlan("pro").limit("api", "fixed-window rate=5 period=1h");
    assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("limit 'api', plan 'pro' (fixed-window rate=5 period=1h): its keys would share one state "
            + "with the default plan's (fixed-window rate=2 period=1h), but ")
        .hasMessageContaining("can't convert a key's state from one limit to another");
  }

  @Test
  void plan_unknownAtRuntime_usesTheDefaultPlan() {
    RateLimiter limiter = limiter();
    assertThat(limiter.named("api").onPlan("enterprise").limit("alice", 2).allowed()).isTrue();
    assertThat(limiter.named("api").limit("alice", 1).allowed()).as("the same state: the default plan's").isFalse();
  }

  @Test
  void unknownPlans_logOncePerName_andStopPastTheBound() {
    UnknownPlans plans = new UnknownPlans();
    assertThat(plans.seen("api", "gold")).isTrue();
    assertThat(plans.seen("api", "gold")).isFalse();
    assertThat(plans.seen("login", "gold")).isTrue();
    int logged = 2;
    for (int i = 0; i < 10 * UnknownPlans.MAX_LOGGED; i++) {
      logged += plans.seen("api", "p" + i) ? 1 : 0;
    }
    assertThat(logged).as("memory bounded under millions of hostile plan names").isEqualTo(UnknownPlans.MAX_LOGGED);
    assertThat(plans.seen("api", "x".repeat(1_000_000))).isFalse();
  }

  @Test
  void plan_namingALimitWithoutADefaultSpec_isAnErrorAtBuild() {
    RateLimiter.Builder builder = RateLimiter.builder().limit("api", "10/1m").onPlan("pro").limit("search", "100/1m");
    assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class)
        .hasMessage("plan 'pro' names limit 'search', which has no default spec; add limit(\"search\", spec) first");
  }

  @Test
  void plan_badNamesAndDuplicates_areRefused() {
    assertThatThrownBy(() -> RateLimiter.builder().onPlan("Pro").limit("api", "10/1m"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("invalid plan name 'Pro'");
    assertThatThrownBy(() -> RateLimiter.builder().onPlan("pro").limit("api", "10/1m").onPlan("pro").limit("api", "20/1m"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("limit 'api' is defined twice in plan 'pro'");
  }

  @Test
  void plan_replacedAtRuntime_andResetForgetsTheKeyUnderEveryPlan() {
    RateLimiter limiter = limiter();
    limiter.named("api").onPlan("pro").limit("alice", 5);
    assertThat(limiter.named("api").onPlan("pro").replace(Limit.parse("fixed-window rate=8 period=1h")))
        .isEqualTo(Limit.parse("fixed-window rate=5 period=1h"));
    assertThat(limiter.named("api").onPlan("pro").check("alice", 0).remaining()).as("5 used stay used").isEqualTo(3);
    assertThat(limiter.named("api").limit("alice", 1).allowed()).as("one state per key: 5 used, capped by 2").isFalse();
    limiter.named("api").reset("alice");
    assertThat(limiter.named("api").onPlan("pro").check("alice", 0).remaining()).isEqualTo(8);
    assertThat(limiter.named("api").check("alice", 0).remaining()).isEqualTo(2);
    assertThatThrownBy(() -> limiter.named("api").onPlan("gold").replace(Limit.parse("1/1m")))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("limit 'api' has no plan 'gold'; its plans: pro");
  }
}

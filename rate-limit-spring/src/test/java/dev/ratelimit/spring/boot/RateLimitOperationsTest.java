package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.ManualClock;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.contract.SwitchableStore;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.store.InMemoryStore;
import dev.ratelimit.store.RateLimitStore;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;

/** Health, the per-key endpoint, ratelimit.enabled, and hostile keys through the aspect. */
class RateLimitOperationsTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
      .withBean(ManualClock.class, () -> new ManualClock(1_767_225_600_000L))
      .withPropertyValues("ratelimit.limits.api=token-bucket rate=2 period=1m");

  public static class Greeter {
    @RateLimited(name = "api", key = "#name")
    public String greet(String name) {
      return "hello";
    }
  }

  public static class PerUser {
    @RateLimited(name = "api", key = "#principal")
    public String call() {
      return "done";
    }
  }

  @Test
  void principal_isTheAuthenticatedUsersName_andNobodyOrAnAnonymousUserIsTheGlobalKey() {
    runner.withBean(PerUser.class).run(context -> {
      RateLimiter limiter = context.getBean(RateLimiter.class);
      PerUser perUser = context.getBean(PerUser.class);
      try {
        SecurityContextHolder.getContext().setAuthentication(
            UsernamePasswordAuthenticationToken.authenticated("ann", "n/a", AuthorityUtils.createAuthorityList("USER")));
        perUser.call();
        assertThat(limiter.named("api").check("ann", 0).remaining()).isEqualTo(1);
        SecurityContextHolder.getContext().setAuthentication(new AnonymousAuthenticationToken("key", "anonymousUser",
            AuthorityUtils.createAuthorityList("ROLE_ANONYMOUS")));
        perUser.call();
        assertThat(limiter.named("api").check("anonymousUser", 0).remaining()).as("anonymous is nobody").isEqualTo(2);
        assertThat(limiter.named("api").check("", 0).remaining()).isEqualTo(1);
        SecurityContextHolder.clearContext();
        perUser.call();
        assertThat(limiter.named("api").check("", 0).remaining()).isEqualTo(0);
        assertThat(limiter.named("api").check("ann", 0).remaining()).isEqualTo(1);
      } finally {
        SecurityContextHolder.clearContext();
      }
    });
  }

  @Test
  void disabled_turnsEverythingOff() {
    runner.withBean(Greeter.class).withPropertyValues("ratelimit.enabled=false").run(context -> {
      assertThat(context).hasNotFailed().doesNotHaveBean(RateLimiter.class)
          .doesNotHaveBean(RateLimitHealthIndicator.class).doesNotHaveBean(RateLimitsEndpoint.class);
      for (int i = 0; i < 5; i++) {
        assertThat(context.getBean(Greeter.class).greet("ann")).isEqualTo("hello");
      }
    });
  }

  @Test
  void health_isUpWithTheStore_andWhileItIsDownSaysSoAndThePolicy_downOnlyWhenConfigured() {
    runner.run(context -> {
      Health health = context.getBean(RateLimitHealthIndicator.class).health();
      assertThat(health.getStatus()).isEqualTo(Status.UP);
      assertThat(health.getDetails()).containsEntry("store", "InMemoryStore").containsEntry("storeAvailable", true)
          .doesNotContainKey("storeFailure");
    });
    runner.withBean(RateLimitStore.class, SwitchableStore::unavailable).run(context -> {
      context.getBean(RateLimiter.class).named("api").limit("ann", 1); // fails over to the local policy
      Health health = context.getBean(RateLimitHealthIndicator.class).health();
      assertThat(health.getStatus()).isEqualTo(Status.UP);
      assertThat(health.getDetails()).containsEntry("store", "SwitchableStore").containsEntry("storeAvailable", false)
          .containsEntry("storeFailure", "local");
      assertThat((String) health.getDetails().get("detail")).contains("does not answer");
    });
    runner.withBean(RateLimitStore.class, SwitchableStore::unavailable)
        .withPropertyValues("ratelimit.health.down-when-store-unavailable=true", "ratelimit.store-failure=open")
        .run(context -> {
          context.getBean(RateLimiter.class).named("api").limit("ann", 1);
          Health health = context.getBean(RateLimitHealthIndicator.class).health();
          assertThat(health.getStatus()).isEqualTo(Status.DOWN);
          assertThat(health.getDetails()).containsEntry("storeFailure", "open");
        });
  }

  @Test
  void perKeyOperations_readWithoutConsuming_resetTheKey_andAnswer404ForAnUnknownLimit() {
    runner.run(context -> {
      RateLimiter limiter = context.getBean(RateLimiter.class);
      RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
      limiter.named("api").limit("ann", 2);
      assertThat(endpoint.key("api", "ann")).isEqualTo(new RateLimitsEndpoint.KeyState(0, 2, 30_000, 60_000));
      assertThat(endpoint.key("api", "ann")).isEqualTo(new RateLimitsEndpoint.KeyState(0, 2, 30_000, 60_000));
      assertThat(endpoint.reset("api", "ann").getStatus()).isEqualTo(204);
      assertThat(endpoint.key("api", "ann")).isEqualTo(new RateLimitsEndpoint.KeyState(2, 2, 0, 0));
      assertThat(endpoint.key("nope", "ann")).isNull();
      assertThat(endpoint.reset("nope", "ann").getStatus()).isEqualTo(404);
    });
  }

  /**
   * A 1 MB key from SpEL must not be stored whole. Depends on core bounding
   * keys inside RateLimiter (the {@code evict} branch); fails without it.
   */
  @Test
  void megabyteKeysThroughTheAspect_reachTheStoreAtMost256Bytes_andEachKeepsItsOwnBucket() {
    SwitchableStore store = new SwitchableStore(new InMemoryStore());
    runner.withBean(RateLimitStore.class, () -> store).withBean(Greeter.class)
        .withPropertyValues("ratelimit.limits.api=token-bucket rate=1 period=1h").run(context -> {
          Greeter greeter = context.getBean(Greeter.class);
          for (int i = 0; i < 200; i++) {
            String key = i + "x".repeat(1 << 20);
            assertThat(greeter.greet(key)).isEqualTo("hello");
            assertThatThrownBy(() -> greeter.greet(key)).isInstanceOf(RateLimitExceededException.class);
          }
          assertThat(store.keys()).hasSize(400)
              .allSatisfy(key -> assertThat(key.getBytes(StandardCharsets.UTF_8)).hasSizeLessThanOrEqualTo(256));
        });
  }
}

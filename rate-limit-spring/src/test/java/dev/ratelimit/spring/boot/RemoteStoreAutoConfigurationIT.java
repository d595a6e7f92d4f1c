package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.bucket4j.Bucket4jStore;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.redis.RedisServer;
import dev.ratelimit.redis.RedisStore;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** ratelimit.store=redis and =bucket4j, against a real redis-server. */
class RemoteStoreAutoConfigurationIT {
  private static RedisServer redis;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
      .withPropertyValues("ratelimit.limits.api=token-bucket rate=3 period=1h");

  @BeforeAll
  static void startRedis() {
    redis = RedisServer.start();
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  @Test
  void redisUrl_givesTwoApplicationsOneSharedLimit() {
    ApplicationContextRunner onRedis = runner.withPropertyValues("ratelimit.store=redis",
        "ratelimit.redis.url=" + redis.uri(), "ratelimit.store-failure=closed");
    onRedis.run(first -> onRedis.run(second -> {
      assertThat(first.getBean(RateLimiter.class).store()).isInstanceOf(RedisStore.class);
      RateLimiter a = first.getBean(RateLimiter.class);
      RateLimiter b = second.getBean(RateLimiter.class);
      assertThat(a.named("api").limit("shared-key", 2).allowed()).isTrue();
      assertThat(b.named("api").limit("shared-key", 1).allowed()).isTrue();
      assertThat(a.named("api").limit("shared-key", 1).allowed()).as("the other node took the last unit").isFalse();
    }));
  }

  @Test
  void withoutAUrl_theApplicationsLettuceConnectionIsUsed() {
    runner.withPropertyValues("ratelimit.store=redis", "ratelimit.store-failure=closed")
        .withBean(LettuceConnectionFactory.class,
            () -> new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", redis.port())))
        .run(context -> {
          assertThat(context).hasNotFailed();
          RateLimiter limiter = context.getBean(RateLimiter.class);
          assertThat(limiter.named("api").limit("via-factory", 3).allowed()).isTrue();
          assertThat(limiter.named("api").limit("via-factory", 1).allowed()).isFalse();
          assertThat(redis.command("EXISTS", "ratelimit:{api:via-factory}")).isEqualTo(":1");
        });
  }

  @Test
  void redisMaxPending_setsTheStoresBound_andBelowOneStopsStartupNamingIt() {
    runner.withPropertyValues("ratelimit.store=redis", "ratelimit.redis.url=" + redis.uri(),
        "ratelimit.redis.max-pending=0").run(context -> assertThat(context).hasFailed().getFailure()
        .rootCause().hasMessageContaining("ratelimit.redis.max-pending must be at least 1 but was 0"));
    runner.withPropertyValues("ratelimit.store=redis", "ratelimit.redis.url=" + redis.uri(),
        "ratelimit.redis.max-pending=-5").run(context -> assertThat(context).hasFailed().getFailure()
        .rootCause().hasMessageContaining("ratelimit.redis.max-pending must be at least 1 but was -5"));
  }

  @Test
  void redis_withNothingToConnectTo_orAnUnreachableUrl_failsStartupSayingWhatToSet() {
    runner.withPropertyValues("ratelimit.store=redis").run(context -> {
      assertThat(context).hasFailed();
      FailureAnalysis analysis = new RateLimitFailureAnalyzer().analyze(context.getStartupFailure());
      assertThat(analysis.getDescription()).contains("ratelimit.store=redis needs a Redis: set ratelimit.redis.url");
    });
    runner.withPropertyValues("ratelimit.store=redis", "ratelimit.redis.url=redis://127.0.0.1:1").run(context -> {
      assertThat(context).hasFailed();
      assertThat(new RateLimitFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
          .contains("ratelimit.redis.url=redis://127.0.0.1:1");
    });
  }

  @Test
  void bucket4j_usesTheApplicationsProxyManager() {
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, byte[]> connection =
        client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE))) {
      ProxyManager<String> proxyManager = Bucket4jLettuce.casBasedBuilder(connection).build();
      runner.withPropertyValues("ratelimit.store=bucket4j").withBean(ProxyManager.class, () -> proxyManager)
          .run(context -> {
            assertThat(context.getBean(RateLimiter.class).store()).isInstanceOf(Bucket4jStore.class);
            RateLimiter limiter = context.getBean(RateLimiter.class);
            assertThat(limiter.named("api").limit("b4j", 3).allowed()).isTrue();
            assertThat(limiter.named("api").limit("b4j", 1).allowed()).isFalse();
          });
    } finally {
      client.shutdown();
    }
  }

  @Test
  void bucket4j_withoutAProxyManager_failsStartup() {
    runner.withPropertyValues("ratelimit.store=bucket4j").run(context -> {
      assertThat(context).hasFailed();
      assertThat(new RateLimitFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
          .contains("ratelimit.store=bucket4j needs exactly one bucket4j ProxyManager<String> bean");
    });
  }
}

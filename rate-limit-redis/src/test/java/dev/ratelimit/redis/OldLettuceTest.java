package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.Test;

/**
 * On a Lettuce older than the store needs (6.1.8, as an application pinning Lettuce for another
 * library has), building a store says which Lettuce it found and which it needs, rather than a
 * {@code NoClassDefFoundError} naming neither. Runs in its own Surefire execution, with that
 * Lettuce on the class path in place of the build's (pom.xml, {@code old-lettuce}).
 */
class OldLettuceTest {
  private static final String MESSAGE = "rate-limit-redis needs Lettuce (io.lettuce:lettuce-core) 6.3.0 or later, "
      + "but found Lettuce 6.1.8.RELEASE, which lacks io.lettuce.core.api.async.RedisFunctionAsyncCommands; "
      + "take Lettuce 6.3.0 or later (the one Spring Boot 3.5 and 4 manage is)";

  @Test
  void builderAndCreate_onLettuceWithoutFunctions_nameTheVersionFoundAndTheMinimum() {
    assertThat(RedisClient.class.getPackage().getImplementationVersion()).as("this execution's class path")
        .isEqualTo("6.1.8.RELEASE");
    assertThatThrownBy(RedisStore::builder).isInstanceOf(IllegalStateException.class).hasMessage(MESSAGE);
    assertThatThrownBy(() -> RedisStore.create("redis://127.0.0.1:1")).isInstanceOf(IllegalStateException.class)
        .hasMessage(MESSAGE);
  }
}

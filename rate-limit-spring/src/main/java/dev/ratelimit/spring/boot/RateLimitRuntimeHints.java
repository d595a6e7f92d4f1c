package dev.ratelimit.spring.boot;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image of an application with rate-limit needs beyond what Spring's AOT
 * processing finds itself (docs/design.md §7.5): the Redis store's Lua scripts, which it reads as
 * class path resources when it is built. The properties ({@code @ConfigurationProperties}), the
 * endpoint's operations and the {@code spring.factories} entries are registered by Spring and
 * Boot; the annotated beans by {@code RateLimitedAotProcessor}.
 */
final class RateLimitRuntimeHints implements RuntimeHintsRegistrar {

  @Override
  public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
    hints.resources().registerPattern("dev/ratelimit/redis/*.lua");
  }
}

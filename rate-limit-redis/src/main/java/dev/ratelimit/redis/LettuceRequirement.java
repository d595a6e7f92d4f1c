package dev.ratelimit.redis;

import io.lettuce.core.RedisClient;

/**
 * The Lettuce the store runs on: 6.3.0 or later, the first with Redis functions
 * ({@code RedisFunctionAsyncCommands}), which the scripts' runner calls (FCALL, docs/design.md
 * §4.3). An older Lettuce (an application may pin one for another library) would fail deep in
 * the build with a {@code NoClassDefFoundError} naming neither; this says which Lettuce was
 * found and which is needed, before anything of the store is made.
 */
final class LettuceRequirement {
  static final String MINIMUM = "6.3.0";
  private static final String FUNCTIONS = "io.lettuce.core.api.async.RedisFunctionAsyncCommands";
  /** What is wrong with the Lettuce on the class path, or {@code null}; looked at once. */
  private static final String PROBLEM = problem();

  private LettuceRequirement() {}

  static void check() {
    if (PROBLEM != null) {
      throw new IllegalStateException(PROBLEM);
    }
  }

  private static String problem() {
    ClassLoader loader = RedisClient.class.getClassLoader();
    try {
      Class.forName(FUNCTIONS, false, loader);
      return null;
    } catch (ClassNotFoundException | LinkageError e) {
      return "rate-limit-redis needs Lettuce (io.lettuce:lettuce-core) " + MINIMUM + " or later, but found "
          + version() + ", which lacks " + FUNCTIONS + "; take Lettuce " + MINIMUM + " or later (the one "
          + "Spring Boot 3.5 and 4 manage is)";
    }
  }

  /** Lettuce's version as its jar's manifest says ({@code 6.3.0.RELEASE/9bb1669}: the part before the slash). */
  private static String version() {
    String version = RedisClient.class.getPackage().getImplementationVersion();
    if (version == null) {
      return "a Lettuce of unknown version";
    }
    int slash = version.indexOf('/');
    return "Lettuce " + (slash < 0 ? version : version.substring(0, slash));
  }
}

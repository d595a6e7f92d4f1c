package dev.ratelimit.redis;

import dev.ratelimit.algorithm.LimitKind;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * One Lua script, assembled from the resources next to this class: the argument layout
 * ({@link ScriptArguments#lua()}), the shared rules, the decision assembly of its family (word
 * or object), the algorithm, and a driver. Its SHA-1 is what {@code EVALSHA} sends.
 *
 * <p>The same parts also make a Redis Functions library ({@link #library()}, Redis 7+), called
 * with {@code FCALL}: a script run by {@code EVALSHA} defines its few dozen local functions
 * again on every call, a library builds them once (on its first call: Redis 7.0 lets a library
 * reach only the {@code redis} API while it loads) and each call runs the driver alone.
 */
final class Script {
  /** One script per kind, named as the kind is in specs: its Lua file is {@code <kind>.lua}. */
  private static final Map<String, Script> FOR_KIND = forEachKind();

  /** Every kind (those kept in place first), for all-or-nothing calls over several limits. */
  static final Script LIMIT_ALL = forKinds("limit-all", LimitKind.all().stream()
      .sorted(Comparator.comparing(kind -> !kind.inPlace())).toList(), "main-all");

  private final String name;
  private final String source;
  private final String sha;
  private final String library;

  private Script(String name, String source, String library) {
    this.name = name;
    this.source = source;
    this.sha = sha1(source);
    this.library = library.replace(FUNCTION_NAME, function());
  }

  /** Where the library names its function: the script's SHA-1 is only known once it is assembled. */
  private static final String FUNCTION_NAME = "@FUNCTION@";

  /** The script that decides requests on one key of a limit of this kind. */
  static Script forKind(String kind) {
    Script script = FOR_KIND.get(kind);
    if (script == null) {
      throw new IllegalArgumentException("no Redis script for limits of kind " + kind);
    }
    return script;
  }

  String name() {
    return name;
  }

  String source() {
    return source;
  }

  String sha() {
    return sha;
  }

  /**
   * The function {@code FCALL} calls, named by the script's SHA-1 (as the library is), so that
   * a server holding another version's library never runs it for this one.
   */
  String function() {
    return "ratelimit_" + sha;
  }

  /** The library that {@code FUNCTION LOAD} loads: the same Lua as {@link #source()}, run as a function. */
  String library() {
    return library;
  }

  private static Map<String, Script> forEachKind() {
    Map<String, Script> scripts = new HashMap<>();
    for (LimitKind kind : LimitKind.all()) {
      scripts.put(kind.spec(), forKinds(kind.spec(), List.of(kind), "main-batch"));
    }
    return Map.copyOf(scripts);
  }

  /** The shared rules, the decision assembly of each family the kinds are in, the kinds, a driver. */
  private static Script forKinds(String name, List<LimitKind> kinds, String driver) {
    List<String> parts = new ArrayList<>(List.of("rules"));
    if (kinds.stream().anyMatch(LimitKind::inPlace)) {
      parts.add("word");
    }
    if (!kinds.stream().allMatch(LimitKind::inPlace)) {
      parts.add("object");
    }
    kinds.forEach(kind -> parts.add(kind.spec()));
    parts.add("state");
    StringBuilder body = new StringBuilder().append(ScriptArguments.lua()).append(ValueFormat.lua());
    for (String part : parts) {
      body.append("\n-- ==== ").append(part).append(".lua ====\n").append(resource(part + ".lua"));
    }
    String driverCode = "\n-- ==== " + driver + ".lua ====\n" + resource(driver + ".lua");
    String source = "-- rate-limit: " + name + " (dev.ratelimit.redis)\n\n" + body + driverCode;
    // KEYS and ARGV are the function's arguments: upvalues the driver sets before it runs, where
    // the script reads the globals EVALSHA sets
    String library = "#!lua name=" + FUNCTION_NAME + "\n"
        + "-- rate-limit: " + name + " (dev.ratelimit.redis), as a Redis Functions library\n"
        + "local function build()\n"
        + "local KEYS, ARGV\n"
        + body
        + "\nreturn function(keys, argv)\n"
        + "KEYS, ARGV = keys, argv\n"
        + driverCode
        + "\nend\n"
        + "end\n\n"
        + "local decide\n"
        + "redis.register_function('" + FUNCTION_NAME + "', function(keys, argv)\n"
        + "  if decide == nil then\n"
        + "    decide = build()\n"
        + "  end\n"
        + "  return decide(keys, argv)\n"
        + "end)\n";
    return new Script(name, source, library);
  }

  private static String resource(String file) {
    try (InputStream in = Script.class.getResourceAsStream(file)) {
      if (in == null) {
        throw new IllegalStateException("missing resource dev/ratelimit/redis/" + file);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String sha1(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is missing from this JVM", e);
    }
  }

  @Override
  public String toString() {
    return name + " script";
  }
}

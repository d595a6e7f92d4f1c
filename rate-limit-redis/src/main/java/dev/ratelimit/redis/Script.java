package dev.ratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * One Lua script, assembled from the resources next to this class: the argument layout
 * ({@link ScriptArguments#lua()}), the shared rules, the decision assembly of its family (word
 * or object), the algorithm, and a driver. Its SHA-1 is what {@code EVALSHA} sends.
 */
final class Script {
  /** The kinds whose state is one number and a stamp. */
  private static final List<String> WORD_KINDS = List.of("token-bucket", "gcra", "fixed-window");
  private static final List<String> OBJECT_KINDS = List.of("sliding-window", "sliding-log", "quota");

  private static final Map<String, Script> FOR_KIND = Map.of(
      "token-bucket", forKinds("token-bucket", List.of("token-bucket"), "main-batch"),
      "gcra", forKinds("gcra", List.of("gcra"), "main-batch"),
      "fixed-window", forKinds("fixed-window", List.of("fixed-window"), "main-batch"),
      "sliding-window", forKinds("sliding-window", List.of("sliding-window"), "main-batch"),
      "sliding-log", forKinds("sliding-log", List.of("sliding-log"), "main-batch"),
      "quota", forKinds("quota", List.of("quota"), "main-batch"));

  /** Every kind, for all-or-nothing calls over several limits. */
  static final Script LIMIT_ALL = forKinds("limit-all", concat(WORD_KINDS, OBJECT_KINDS), "main-all");

  private final String name;
  private final String source;
  private final String sha;

  private Script(String name, String source) {
    this.name = name;
    this.source = source;
    this.sha = sha1(source);
  }

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

  private static Script forKinds(String name, List<String> kinds, String driver) {
    List<String> parts = new ArrayList<>(List.of("rules"));
    if (kinds.stream().anyMatch(WORD_KINDS::contains)) {
      parts.add("word");
    }
    if (kinds.stream().anyMatch(OBJECT_KINDS::contains)) {
      parts.add("object");
    }
    parts.addAll(kinds);
    parts.add("state");
    parts.add(driver);
    StringBuilder source = new StringBuilder("-- rate-limit: ").append(name).append(" (dev.ratelimit.redis)\n");
    source.append('\n').append(ScriptArguments.lua());
    for (String part : parts) {
      source.append("\n-- ==== ").append(part).append(".lua ====\n").append(resource(part + ".lua"));
    }
    return new Script(name, source.toString());
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

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
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

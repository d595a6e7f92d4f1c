package dev.ratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import dev.ratelimit.algorithm.LimitKind;
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

package dev.ratelimit.http;

import dev.ratelimit.internal.LongKeys;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The key kinds of a rule's {@code key=} (docs/design.md §6.2): parsing them, the built-in keys
 * (each writes itself back as its spec, for messages) and bounding long keys. A front end adds
 * its own kinds (a servlet {@code KeyResolver} class, a SpEL expression) through {@link Custom}.
 */
public final class Keys {
  /** Keys up to this many UTF-8 bytes reach the store as they are; longer ones are hashed. */
  public static final int MAX_KEY_BYTES = LongKeys.MAX_KEY_BYTES;
  static final String BUILT_IN = "ip, header:NAME, principal, param:NAME";
  /** An HTTP token (RFC 9110 §5.6.2): what a header name may be. */
  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

  /**
   * A front end's own key kinds.
   *
   * @param accepts whether a spec is of these kinds (tried after the built-in ones)
   * @param make the key of such a spec
   * @param allowed how messages list them: {@code the name of a class implementing ...}
   */
  public record Custom(Function<String, Boolean> accepts, Function<String, RequestKey> make, String allowed) {
    /** No kinds beyond the built-in ones. */
    public static final Custom NONE = new Custom(spec -> false, spec -> null, null);

    public Custom {
      Objects.requireNonNull(accepts, "accepts");
      Objects.requireNonNull(make, "make");
    }
  }

  private Keys() {}

  /**
   * Reads a key spec: a kind, then any options after {@code |} ({@code param:user|lower|trim}).
   * Header and parameter names can't contain {@code |}.
   *
   * @param clients how {@code ip} finds the client
   * @throws IllegalArgumentException naming the spec and the kinds or options allowed
   */
  public static RequestKey parse(String spec, TrustedProxies clients, Custom custom) {
    if (custom.accepts().apply(spec)) {
      return custom.make().apply(spec); // a SpEL expression may hold a '|'
    }
    int bar = spec.indexOf('|');
    if (bar < 0) {
      return parseKind(spec, clients, custom);
    }
    String kind = spec.substring(0, bar);
    if (kind.equals("ip")) {
      throw new IllegalArgumentException("key 'ip' takes no options: addresses are normalised already, in '" + spec
          + "'");
    }
    return NormalisedKey.parse(parseKind(kind, clients, custom), spec.substring(bar + 1), spec);
  }

  private static RequestKey parseKind(String spec, TrustedProxies clients, Custom custom) {
    if (spec.equals("ip")) {
      return ip(clients);
    }
    if (spec.equals("principal")) {
      return principal();
    }
    if (spec.startsWith("header:")) {
      String name = spec.substring("header:".length());
      if (!TOKEN.matcher(name).matches()) {
        throw new IllegalArgumentException("bad header name '" + name + "' in key '" + spec + "'; expected header:NAME");
      }
      return header(name);
    }
    if (spec.startsWith("param:")) {
      String name = spec.substring("param:".length());
      if (name.isEmpty()) {
        throw new IllegalArgumentException("no parameter name in key '" + spec + "'; expected param:NAME");
      }
      return param(name);
    }
    if (custom.accepts().apply(spec)) {
      return custom.make().apply(spec);
    }
    throw new IllegalArgumentException("unknown key kind '" + spec + "'; allowed: "
        + (custom.allowed() == null ? BUILT_IN : BUILT_IN + ", or " + custom.allowed()));
  }

  /** The client's address (IPv6 grouped by /64), through the given trusted proxies. */
  public static RequestKey ip(TrustedProxies clients) {
    return new Ip(clients);
  }

  /** A request header's value; missing when the header is absent or blank. */
  public static RequestKey header(String name) {
    return new Header(name);
  }

  /** A query (or form) parameter; missing when absent or blank. */
  public static RequestKey param(String name) {
    return new Param(name);
  }

  /** The authenticated user's name; missing for anonymous requests. */
  public static RequestKey principal() {
    return Principal.INSTANCE;
  }

  /** Whether a key is the built-in {@code principal} (alone or with options): a reactive front end reads the user first. */
  public static boolean readsPrincipal(RequestKey key) {
    return key == Principal.INSTANCE || key instanceof NormalisedKey normalised && readsPrincipal(normalised.source());
  }

  /** Whether a key is the built-in {@code param:NAME} (alone or with options): a reactive front end reads a form first. */
  public static boolean readsParam(RequestKey key) {
    return key instanceof Param || key instanceof NormalisedKey normalised && readsParam(normalised.source());
  }

  /**
   * The key as it reaches the store ({@link LongKeys#bounded}, as the limiter bounds every key):
   * long keys and keys with lone surrogates hashed, so a huge header costs the store 71 bytes.
   */
  public static String bounded(String key) {
    return LongKeys.bounded(key);
  }

  private static String present(String value) {
    return value == null || value.isBlank() ? null : value;
  }

  record Ip(TrustedProxies clients) implements RequestKey {
    Ip {
      Objects.requireNonNull(clients, "clients");
    }

    @Override
    public String resolve(Request request) {
      return clients.key(request);
    }

    @Override
    public String toString() {
      return "ip";
    }
  }

  record Header(String name) implements RequestKey {
    Header {
      Objects.requireNonNull(name, "name");
    }

    @Override
    public String resolve(Request request) {
      return present(request.header(name));
    }

    @Override
    public String toString() {
      return "header:" + name;
    }
  }

  record Param(String name) implements RequestKey {
    Param {
      Objects.requireNonNull(name, "name");
    }

    @Override
    public String resolve(Request request) {
      return present(request.param(name));
    }

    @Override
    public String toString() {
      return "param:" + name;
    }
  }

  enum Principal implements RequestKey {
    INSTANCE;

    @Override
    public String resolve(Request request) {
      return present(request.principal());
    }

    @Override
    public String toString() {
      return "principal";
    }
  }
}

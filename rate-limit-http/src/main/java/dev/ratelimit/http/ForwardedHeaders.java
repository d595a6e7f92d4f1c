package dev.ratelimit.http;

import java.util.ArrayList;
import java.util.List;

/**
 * The hops of {@code Forwarded} (RFC 7239) and {@code X-Forwarded-For}, in order, nearest last.
 * Tolerant and total: any text gives a list, never an exception. A hop that names no usable
 * address (no {@code for=}, {@code unknown}, an obfuscated {@code _name}, garbage) is
 * {@code null}, which stops the walk from the right: nothing left of it can be trusted.
 */
final class ForwardedHeaders {
  /** More hops than any real proxy chain; the walk never looks further to the left. */
  static final int MAX_HOPS = 64;

  private ForwardedHeaders() {}

  /** The {@code for=} address of each element of each {@code Forwarded} header line. */
  static List<byte[]> forwarded(Iterable<String> lines) {
    List<byte[]> hops = new ArrayList<>();
    for (String line : lines) {
      for (String element : split(line, ',')) {
        hops.add(forElement(element));
      }
    }
    return last(hops);
  }

  /** Each comma-separated entry of each {@code X-Forwarded-For} header line. */
  static List<byte[]> xForwardedFor(Iterable<String> lines) {
    List<byte[]> hops = new ArrayList<>();
    for (String line : lines) {
      for (String entry : line.split(",", -1)) {
        hops.add(node(entry.strip()));
      }
    }
    return last(hops);
  }

  private static List<byte[]> last(List<byte[]> hops) {
    return hops.size() <= MAX_HOPS ? hops : hops.subList(hops.size() - MAX_HOPS, hops.size());
  }

  /** The address of an element's {@code for} pair; {@code null} when absent, repeated or unusable. */
  private static byte[] forElement(String element) {
    if (element == null) {
      return null;
    }
    String value = null;
    for (String pair : split(element, ';')) {
      if (pair == null) {
        return null;
      }
      int eq = pair.indexOf('=');
      if (eq < 0) {
        if (pair.isBlank()) {
          continue;
        }
        return null;
      }
      if (pair.substring(0, eq).strip().equalsIgnoreCase("for")) {
        if (value != null) {
          return null; // a parameter may occur once per element (RFC 7239 §4)
        }
        value = unquote(pair.substring(eq + 1).strip());
        if (value == null) {
          return null;
        }
      }
    }
    return value == null ? null : node(value);
  }

  /** A token as is, a quoted-string without its quotes and escapes; {@code null} if unterminated. */
  private static String unquote(String value) {
    if (value.isEmpty() || value.charAt(0) != '"') {
      return value;
    }
    StringBuilder text = new StringBuilder(value.length());
    for (int i = 1; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\\' && i + 1 < value.length()) {
        text.append(value.charAt(++i));
      } else if (c == '"') {
        return i == value.length() - 1 ? text.toString() : null;
      } else {
        text.append(c);
      }
    }
    return null;
  }

  /**
   * Splits at a separator outside quoted-strings. A quote left open makes the last part
   * {@code null}: a proxy that appends to a client's header by concatenation would otherwise
   * have its own element swallowed into the client's string, and the client's address believed.
   */
  private static List<String> split(String text, char separator) {
    List<String> parts = new ArrayList<>();
    boolean quoted = false;
    int start = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quoted && c == '\\') {
        i++;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == separator && !quoted) {
        parts.add(text.substring(start, i));
        start = i + 1;
      }
    }
    parts.add(quoted ? null : text.substring(Math.min(start, text.length())));
    return parts;
  }

  /**
   * A node: {@code 192.0.2.60}, {@code 192.0.2.60:8080}, {@code [2001:db8::17]},
   * {@code [2001:db8::17]:4711} or a bare IPv6 address, as proxies write them.
   */
  static byte[] node(String node) {
    if (node.isEmpty()) {
      return null;
    }
    if (node.charAt(0) == '[') {
      int close = node.indexOf(']');
      if (close < 0 || !port(node, close + 1)) {
        return null;
      }
      String inner = node.substring(1, close);
      return inner.indexOf(':') < 0 ? null : IpAddress.parse(inner);
    }
    int colon = node.indexOf(':');
    if (colon >= 0 && node.indexOf(':', colon + 1) < 0) {
      // IPv4 with a port
      return port(node, colon) ? IpAddress.parseV4(node, 0, colon) : null;
    }
    return IpAddress.parse(node);
  }

  /** Nothing, or {@code :} and a port: digits or an obfuscated {@code _name} (RFC 7239 §6.3). */
  private static boolean port(String node, int at) {
    if (at == node.length()) {
      return true;
    }
    if (node.charAt(at) != ':' || at + 1 == node.length()) {
      return false;
    }
    String port = node.substring(at + 1);
    if (port.charAt(0) == '_') {
      return port.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-');
    }
    return port.length() <= 5 && port.chars().allMatch(c -> c >= '0' && c <= '9');
  }
}

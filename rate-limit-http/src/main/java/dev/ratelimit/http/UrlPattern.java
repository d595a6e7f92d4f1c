package dev.ratelimit.http;

import java.util.Objects;
import java.util.function.Predicate;

/**
 * A rule's path, in servlet url-pattern syntax, matched against the path within the application
 * (servlet path and path info, as the container decoded and normalised them): exact
 * ({@code /login}), prefix ({@code /api/*}, which also matches {@code /api}), extension
 * ({@code *.json}, on the last segment), everything ({@code /*}), or {@code /}, the default
 * mapping: requests that no other rule matches.
 */
public record UrlPattern(String text, Kind kind, String value, Predicate<String> custom) {

  /** The forms of url-pattern, and {@code CUSTOM}: a predicate on the path, such as a Spring path pattern. */
  public enum Kind { EXACT, PREFIX, EXTENSION, ALL, DEFAULT, CUSTOM }

  UrlPattern(String text, Kind kind, String value) {
    this(text, kind, value, null);
  }

  /** A pattern of another syntax, matched by a predicate on the path within the application. */
  public static UrlPattern custom(String text, Predicate<String> matches) {
    return new UrlPattern(text, Kind.CUSTOM, "", Objects.requireNonNull(matches, "matches"));
  }

  /** @throws IllegalArgumentException naming the pattern and the forms allowed */
  public static UrlPattern parse(String text) {
    if (text.equals("/*")) {
      return new UrlPattern(text, Kind.ALL, "");
    }
    if (text.equals("/")) {
      return new UrlPattern(text, Kind.DEFAULT, "");
    }
    if (text.startsWith("*.") && text.length() > 2 && text.indexOf('/') < 0 && text.indexOf('*', 1) < 0) {
      return new UrlPattern(text, Kind.EXTENSION, text.substring(1));
    }
    if (text.startsWith("/") && text.endsWith("/*") && text.indexOf('*') == text.length() - 1) {
      return new UrlPattern(text, Kind.PREFIX, text.substring(0, text.length() - 2));
    }
    if (text.startsWith("/") && text.indexOf('*') < 0) {
      return new UrlPattern(text, Kind.EXACT, text);
    }
    throw new IllegalArgumentException("bad url-pattern '" + text
        + "'; use an exact path (/login), a prefix (/api/*), an extension (*.json), /* or /");
  }

  /** Whether a path matches; {@code /} never does here, it applies when no other rule matched. */
  public boolean matches(String path) {
    return switch (kind) {
      case ALL -> true;
      case DEFAULT -> false;
      case CUSTOM -> custom.test(path);
      case EXACT -> path.equals(value);
      case PREFIX -> path.startsWith(value)
          && (path.length() == value.length() || path.charAt(value.length()) == '/');
      case EXTENSION -> path.endsWith(value) && path.lastIndexOf('/') < path.length() - value.length();
    };
  }

  @Override
  public String toString() {
    return text;
  }
}

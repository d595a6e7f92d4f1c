package dev.ratelimit.cli;

import java.util.Locale;

/** Writes indented SVG markup; every attribute value and text is escaped. */
final class Svg {
  private final StringBuilder out = new StringBuilder();
  private int depth;

  /** Starts an element: {@code attributes} are name, value pairs; numbers are written to 0.1. */
  Svg open(String name, Object... attributes) {
    tag(name, attributes).append(">\n");
    depth++;
    return this;
  }

  Svg close(String name) {
    depth--;
    indent().append("</").append(name).append(">\n");
    return this;
  }

  Svg empty(String name, Object... attributes) {
    tag(name, attributes).append("/>\n");
    return this;
  }

  /** An element that holds only text. */
  Svg text(String name, String text, Object... attributes) {
    tag(name, attributes).append('>').append(escape(text)).append("</").append(name).append(">\n");
    return this;
  }

  @Override
  public String toString() {
    return out.toString();
  }

  private StringBuilder tag(String name, Object... attributes) {
    if (attributes.length % 2 != 0) {
      throw new IllegalArgumentException("attributes come in name, value pairs: " + attributes.length);
    }
    indent().append('<').append(name);
    for (int i = 0; i < attributes.length; i += 2) {
      Object value = attributes[i + 1];
      String text = value instanceof Double || value instanceof Float ? number(((Number) value).doubleValue())
          : String.valueOf(value);
      out.append(' ').append(attributes[i]).append("=\"").append(escape(text)).append('"');
    }
    return out;
  }

  private StringBuilder indent() {
    return out.append("  ".repeat(depth));
  }

  /** A coordinate to 0.1 px, without a trailing {@code .0}. */
  static String number(double value) {
    String text = String.format(Locale.ROOT, "%.1f", value);
    if (text.endsWith(".0")) {
      text = text.substring(0, text.length() - 2);
    }
    return text.equals("-0") ? "0" : text;
  }

  /**
   * Text safe in XML 1.0 content and attribute values: markup characters escaped, characters XML
   * can't hold (most control characters, lone surrogates) replaced with U+FFFD.
   */
  static String escape(String text) {
    StringBuilder escaped = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '&' -> escaped.append("&amp;");
        case '<' -> escaped.append("&lt;");
        case '>' -> escaped.append("&gt;");
        case '"' -> escaped.append("&quot;");
        case '\'' -> escaped.append("&apos;");
        default -> {
          if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
            escaped.append(c).append(text.charAt(++i));
          } else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' || Character.isSurrogate(c)
              || c == '\uFFFE' || c == '\uFFFF') {
            escaped.append('\uFFFD');
          } else {
            escaped.append(c);
          }
        }
      }
    }
    return escaped.toString();
  }
}

package dev.ratelimit.trace;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One JSON object on one line, read into its fields in order with each value kept as written
 * (so an echo is exact: {@code 1} stays {@code 1}, {@code 2.50} stays {@code 2.50}). Only the
 * top level is interpreted; nested values are checked and kept as raw text, nested at most
 * {@link #MAX_DEPTH} levels (docs/design.md §8).
 */
public final class JsonLine {
  /** The deepest nesting of objects and arrays in a field's value. */
  public static final int MAX_DEPTH = 1000;

  private final String text;
  private final Map<String, String> fields = new LinkedHashMap<>();
  private int at;

  private JsonLine(String text) {
    this.text = text;
  }

  /**
   * @return the fields, in order, name to raw JSON value
   * @throws IllegalArgumentException saying where and why the line is not one JSON object
   */
  public static Map<String, String> parse(String line) {
    JsonLine parser = new JsonLine(line);
    parser.object();
    return parser.fields;
  }

  private void object() {
    space();
    expect('{');
    space();
    if (peek() == '}') {
      at++;
    } else {
      for (;;) {
        space();
        String name = unquote(string());
        space();
        expect(':');
        space();
        int start = at;
        value();
        if (fields.put(name, text.substring(start, at)) != null) {
          throw error("field \"" + name + "\" appears twice");
        }
        space();
        char c = next();
        if (c == '}') {
          break;
        }
        if (c != ',') {
          throw error("expected ',' or '}'");
        }
      }
    }
    space();
    if (at < text.length()) {
      throw error("unexpected text after the object");
    }
  }

  /**
   * One value, objects and arrays in it included: read with a stack of the brackets still open
   * rather than by recursion, so that no nesting in a line can overflow the thread's stack; a
   * value nested deeper than {@link #MAX_DEPTH} is refused.
   */
  private void value() {
    char[] closers = null; // what closes each object or array still open, innermost last
    int depth = 0;
    for (;;) {
      char c = peek();
      if (c == '{' || c == '[') {
        if (depth == MAX_DEPTH) {
          throw error("a value nested deeper than " + MAX_DEPTH + " levels");
        }
        at++;
        char close = c == '{' ? '}' : ']';
        if (closers == null || depth == closers.length) {
          closers = Arrays.copyOf(closers == null ? new char[0] : closers, Math.min(MAX_DEPTH, Math.max(8, depth * 2)));
        }
        closers[depth++] = close;
        space();
        if (peek() != close) {
          if (close == '}') {
            member();
          }
          continue; // its first element
        }
        at++;
        depth--;
      } else {
        scalar(c);
      }
      // a value ended: close what ends after it, or go on to the next element of what is open
      for (;;) {
        if (depth == 0) {
          return;
        }
        char close = closers[depth - 1];
        space();
        char next = next();
        if (next == close) {
          depth--;
          continue;
        }
        if (next != ',') {
          throw error("expected ',' or '" + close + "'");
        }
        space();
        if (close == '}') {
          member();
        }
        break;
      }
    }
  }

  /** A member's name and colon, up to its value. */
  private void member() {
    string();
    space();
    expect(':');
    space();
  }

  private void scalar(char c) {
    switch (c) {
      case '"' -> string();
      case 't' -> literal("true");
      case 'f' -> literal("false");
      case 'n' -> literal("null");
      default -> number();
    }
  }

  private String string() {
    int start = at;
    expect('"');
    for (;;) {
      char c = next();
      if (c == '"') {
        return text.substring(start, at);
      }
      if (c == '\\') {
        int escape = at - 1;
        char escaped = next();
        if (escaped == 'u') {
          for (int i = 0; i < 4; i++) {
            if (Character.digit(next(), 16) < 0) {
              at = escape;
              throw error("bad \\u escape");
            }
          }
        } else if ("\"\\/bfnrt".indexOf(escaped) < 0) {
          at = escape;
          throw error("bad escape '\\" + escaped + "'");
        }
      } else if (c < 0x20) {
        throw error("control character in a string");
      }
    }
  }

  private void literal(String word) {
    if (!text.startsWith(word, at)) {
      throw error("expected a value");
    }
    at += word.length();
  }

  private void number() {
    int start = at;
    if (peek() == '-') {
      at++;
    }
    digits();
    if (at < text.length() && text.charAt(at) == '.') {
      at++;
      digits();
    }
    if (at < text.length() && (text.charAt(at) == 'e' || text.charAt(at) == 'E')) {
      at++;
      if (at < text.length() && (text.charAt(at) == '+' || text.charAt(at) == '-')) {
        at++;
      }
      digits();
    }
    if (at == start) {
      throw error("expected a value");
    }
  }

  private void digits() {
    int start = at;
    while (at < text.length() && Character.isDigit(text.charAt(at))) {
      at++;
    }
    if (at == start) {
      throw error("expected a digit");
    }
  }

  private void space() {
    while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
      at++;
    }
  }

  private char peek() {
    if (at >= text.length()) {
      throw error("unexpected end of line");
    }
    return text.charAt(at);
  }

  private char next() {
    char c = peek();
    at++;
    return c;
  }

  private void expect(char c) {
    if (next() != c) {
      at--;
      throw error("expected '" + c + "'");
    }
  }

  private IllegalArgumentException error(String why) {
    return new IllegalArgumentException("bad JSON at column " + (at + 1) + ": " + why);
  }

  /** The text of a raw JSON string value, escapes resolved. */
  public static String unquote(String raw) {
    StringBuilder out = new StringBuilder(raw.length());
    for (int i = 1; i < raw.length() - 1; i++) {
      char c = raw.charAt(i);
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char e = raw.charAt(++i);
      switch (e) {
        case 'n' -> out.append('\n');
        case 't' -> out.append('\t');
        case 'r' -> out.append('\r');
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'u' -> {
          out.append((char) Integer.parseInt(raw.substring(i + 1, i + 5), 16));
          i += 4;
        }
        default -> out.append(e);
      }
    }
    return out.toString();
  }

  /** {@code text} as a JSON string literal. */
  public static String quote(String text) {
    StringBuilder out = new StringBuilder(text.length() + 2).append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}

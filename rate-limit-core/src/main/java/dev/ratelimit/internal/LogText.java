package dev.ratelimit.internal;

/**
 * Values from outside (a key, a plan, a header, a spec read from a shared store) as log lines
 * show them, in one place: control characters escaped, so a value can never start a forged log
 * line, and long values cut, so one value can never make a log record of megabytes.
 */
public final class LogText {
  /** The most characters of a value a log line shows. */
  public static final int MAX_CHARS = 200;

  private LogText() {}

  /**
   * {@code value} in double quotes, its control characters (C0, DEL, C1, and the Unicode line and
   * paragraph separators) and its backslashes and quotes escaped Java-style, cut after
   * {@link #MAX_CHARS} characters with the count of the rest: {@code "abc\n..." (1234 more chars)}.
   */
  public static String quoted(String value) {
    if (value == null) {
      return "null";
    }
    int shown = Math.min(value.length(), MAX_CHARS);
    if (shown < value.length() && Character.isHighSurrogate(value.charAt(shown - 1))) {
      shown--; // never half a character
    }
    StringBuilder out = new StringBuilder(shown + 16).append('"');
    for (int i = 0; i < shown; i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        default -> {
          if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029') {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
    if (shown < value.length()) {
      out.append(" (").append(value.length() - shown).append(" more chars)");
    }
    return out.toString();
  }
}

package dev.ratelimit.cli;

import java.io.IOException;
import java.io.Reader;

/**
 * The lines of a trace, each held whole only up to {@link #MAX_CHARS} characters
 * (docs/design.md §8): a longer line is read on by chunks to its end and kept as its first
 * {@link #SHOWN} characters and its length, so no line, not even one without an end, takes more
 * memory than that. Lines end as {@link java.io.BufferedReader#readLine} ends them: at
 * {@code \n}, {@code \r} or {@code \r\n}.
 */
final class TraceLines {
  /** The longest line read whole: 1 MiB of characters. */
  static final int MAX_CHARS = 1 << 20;
  /** How much of a longer line is kept, to show in its error line. */
  static final int SHOWN = 256;

  private final Reader in;
  private final char[] chunk = new char[8192];
  private int at;
  private int end;
  /** After a {@code \r}: a {@code \n} next ends the same line. */
  private boolean afterCr;

  TraceLines(Reader in) {
    this.in = in;
  }

  /** One line of the trace. */
  sealed interface Line {}

  /** A line read whole. */
  record Text(String text) implements Line {}

  /** A line longer than {@link #MAX_CHARS}: its first {@link #SHOWN} characters and its length. */
  record TooLong(String start, long length) implements Line {}

  /** The next line, or {@code null} at the end of the trace. */
  Line next() throws IOException {
    StringBuilder text = new StringBuilder();
    long length = 0;
    boolean started = false;
    for (;;) {
      if (at == end && !fill()) {
        return started ? line(text, length) : null;
      }
      if (afterCr) {
        afterCr = false;
        if (chunk[at] == '\n') {
          at++;
          continue;
        }
      }
      started = true;
      int from = at;
      while (at < end && chunk[at] != '\n' && chunk[at] != '\r') {
        at++;
      }
      int read = at - from;
      if (length + read <= MAX_CHARS) {
        text.append(chunk, from, read);
      } else if (length <= MAX_CHARS) { // past the bound now (with far more than SHOWN read): keep the start, count the rest
        text.setLength(SHOWN);
        text.trimToSize();
      }
      length += read;
      if (at < end) {
        afterCr = chunk[at] == '\r';
        at++;
        return line(text, length);
      }
    }
  }

  private boolean fill() throws IOException {
    int read;
    do {
      read = in.read(chunk);
    } while (read == 0);
    if (read < 0) {
      return false;
    }
    at = 0;
    end = read;
    return true;
  }

  private static Line line(StringBuilder text, long length) {
    if (length <= MAX_CHARS) {
      return new Text(text.toString());
    }
    int shown = SHOWN;
    if (Character.isHighSurrogate(text.charAt(shown - 1))) {
      shown--; // never half a character
    }
    return new TooLong(text.substring(0, shown), length);
  }
}

package dev.ratelimit.contract;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * The lines one {@code System.Logger} (so a {@code java.util.logging} logger, with no other
 * logging on the class path) writes while captured, formatted as a log file shows them, every
 * level included. {@link #isSafe} says whether a line could be read as more than one line, or
 * is of a size no value from outside should give it.
 */
public final class LogLines implements AutoCloseable {
  /** The longest line a value from outside may produce: its text is cut at 200 characters. */
  public static final int MAX_LINE = 2000;

  private final Logger logger;
  private final Level level;
  private final List<LogRecord> records = new ArrayList<>();
  private final SimpleFormatter formatter = new SimpleFormatter();
  private final Handler handler = new Handler() {
    @Override
    public void publish(LogRecord record) {
      synchronized (records) {
        records.add(record);
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  private LogLines(String name) {
    this.logger = Logger.getLogger(name);
    this.level = logger.getLevel();
    logger.setLevel(Level.ALL);
    logger.addHandler(handler);
  }

  /** Captures what the logger {@code name} (and the loggers below it) writes, until {@link #close}. */
  public static LogLines capture(String name) {
    return new LogLines(name);
  }

  /** Every line so far: the message with its parameters, and the exception's own line if one came with it. */
  public List<String> all() {
    synchronized (records) {
      return records.stream().map(this::line).toList();
    }
  }

  /** The lines so far at {@code level} ({@code WARNING}, {@code INFO}, ...). */
  public List<String> at(Level level) {
    synchronized (records) {
      return records.stream().filter(r -> r.getLevel().equals(level)).map(this::line).toList();
    }
  }

  private String line(LogRecord record) {
    String message = formatter.formatMessage(record);
    return record.getThrown() == null ? message : message + " " + record.getThrown();
  }

  /**
   * Whether {@code line} is one line, of bounded size: no control character (C0, DEL, C1), no
   * Unicode line or paragraph separator, at most {@value #MAX_LINE} characters.
   */
  public static boolean isSafe(String line) {
    if (line.length() > MAX_LINE) {
      return false;
    }
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029') {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    logger.removeHandler(handler);
    logger.setLevel(level);
  }
}

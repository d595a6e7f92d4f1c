package dev.ratelimit.cli;

import dev.ratelimit.trace.JsonLine;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Access log lines in Common Log Format, optionally followed by the referer and user agent of
 * the Combined Log Format, read as one request of the client address:
 *
 * <pre>
 * 127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "-" "curl/8.0"
 * </pre>
 */
final class AccessLog {
  /**
   * A quoted field; Apache escapes a quote inside it as {@code \"}. Possessive, as one way only
   * can match: a greedy loop over a group recurses once per character, and a long field (a
   * megabyte-long request line) would overflow the stack.
   */
  private static final String QUOTED = "\"([^\"\\\\]*+(?:\\\\.[^\"\\\\]*+)*+)\"";
  private static final Pattern LINE = Pattern.compile(
      "(\\S+) +\\S+ +\\S+ +\\[([^\\]]+)\\] +" + QUOTED + " +(\\d{3}|-) +(\\d+|-)(?: +" + QUOTED + " +" + QUOTED + ")?\\s*");
  private static final Pattern REQUEST = Pattern.compile("([A-Za-z]+) +(\\S+)(?: +\\S+)?");
  private static final DateTimeFormatter TIME = new DateTimeFormatterBuilder()
      .parseCaseInsensitive()
      .appendPattern("dd/MMM/yyyy:HH:mm:ss Z")
      .toFormatter(Locale.ENGLISH);

  private AccessLog() {}

  /**
   * The request of one access log line as replayer fields (name to raw JSON value): {@code t}
   * (epoch ms), {@code key} (the client address), {@code method}, {@code path} (or the raw
   * {@code request} when it is not {@code METHOD PATH [PROTOCOL]}) and {@code status}.
   *
   * @throws IllegalArgumentException saying why the line is not one
   */
  static Map<String, String> fields(String line) {
    Matcher m = LINE.matcher(line);
    if (!m.matches()) {
      throw new IllegalArgumentException("neither a JSON object nor an access log line (Common or Combined Log Format)");
    }
    long t;
    try {
      t = OffsetDateTime.parse(m.group(2), TIME).toInstant().toEpochMilli();
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("bad time [" + m.group(2)
          + "] in an access log line; expected [dd/MMM/yyyy:HH:mm:ss +hhmm]");
    }
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("t", Long.toString(t));
    fields.put("key", JsonLine.quote(m.group(1)));
    Matcher request = REQUEST.matcher(m.group(3));
    if (request.matches()) {
      fields.put("method", JsonLine.quote(request.group(1)));
      fields.put("path", JsonLine.quote(request.group(2)));
    } else {
      fields.put("request", JsonLine.quote(m.group(3)));
    }
    if (!m.group(4).equals("-")) {
      fields.put("status", m.group(4));
    }
    return fields;
  }
}

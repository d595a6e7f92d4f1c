package dev.ratelimit.servlet;

import dev.ratelimit.http.LimitHeader;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.PreEncodedHttpField;

/**
 * The rate limit headers as Jetty fields, the ones that repeat made once: a
 * {@link PreEncodedHttpField} holds its bytes as sent, which Jetty copies in one go, where it
 * writes any other field of an unknown name character by character. Made once: the numbers 0 to
 * {@value #SMALL} - 1 of each number header (a limit's capacity, the units remaining and the
 * seconds to reset are these for most limits), and the values of repeated headers (each rule's
 * {@code RateLimit-Policy}), up to {@value #MAX_REPEATED} of them. Anything else is a plain field
 * per response, as {@code addHeader} would make it.
 */
final class JettyFields {
  /** Kept per number header: at most 3 × 1024 fields of a few hundred bytes, made as first used. */
  static final int SMALL = 1024;
  /** A bound on the repeated values kept; there are as many as rules and plans, so far fewer in practice. */
  static final int MAX_REPEATED = 256;

  private static final LimitHeader[] HEADERS = LimitHeader.values();
  /** Jetty's known header of each name, if Jetty ever knows one of them (12.1 knows none). */
  private static final HttpHeader[] KNOWN = new HttpHeader[HEADERS.length];
  private static final HttpField[][] NUMBERS = new HttpField[HEADERS.length][SMALL];
  private static final Repeated REPEATED = new Repeated(MAX_REPEATED);

  static {
    for (LimitHeader header : HEADERS) {
      KNOWN[header.ordinal()] = HttpHeader.CACHE.get(header.fieldName());
    }
  }

  private JettyFields() {}

  /** The field of a whole number, 0 or more: made once below {@link #SMALL}. */
  static HttpField number(LimitHeader header, long value) {
    if (value < 0 || value >= SMALL) {
      return plain(header, Long.toString(value));
    }
    HttpField[] made = NUMBERS[header.ordinal()];
    HttpField field = made[(int) value];
    if (field == null) {
      // two threads may both make it: equal fields, either one kept; a field's state is final, so
      // it is safe to share through this race (as NumberText's strings)
      field = preEncoded(header, Long.toString(value));
      made[(int) value] = field;
    }
    return field;
  }

  /** The field of a value many responses repeat: made once while fewer than {@link #MAX_REPEATED} are kept. */
  static HttpField repeated(LimitHeader header, String value) {
    return REPEATED.field(header, value);
  }

  /** Repeated values' fields, kept up to a bound. */
  static final class Repeated {
    private final int max;
    private final Map<String, HttpField> kept = new ConcurrentHashMap<>();

    Repeated(int max) {
      this.max = max;
    }

    HttpField field(LimitHeader header, String value) {
      HttpField field = kept.get(value);
      if (field != null && field.getName().equals(header.fieldName())) {
        return field;
      }
      if (field != null || kept.size() >= max || !visibleAscii(value)) {
        return plain(header, value);
      }
      // two threads may both get here: either field is right, and the bound holds give or take them
      field = preEncoded(header, value);
      kept.putIfAbsent(value, field);
      return field;
    }

    int size() {
      return kept.size();
    }
  }

  /** A field made for this response, with the name's known header looked up once rather than per field. */
  static HttpField plain(LimitHeader header, String value) {
    return new HttpField(KNOWN[header.ordinal()], header.fieldName(), value);
  }

  private static HttpField preEncoded(LimitHeader header, String value) {
    return new PreEncodedHttpField(KNOWN[header.ordinal()], header.fieldName(), value);
  }

  /**
   * Only values of visible ASCII and spaces are kept encoded: Jetty writes any other character of a
   * plain field as {@code ?} or rejects it, and an encoded field must never say otherwise.
   */
  static boolean visibleAscii(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        return false;
      }
    }
    return true;
  }
}

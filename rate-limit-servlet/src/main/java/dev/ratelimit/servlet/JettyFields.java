package dev.ratelimit.servlet;

import dev.ratelimit.http.LimitHeader;
import dev.ratelimit.http.RateLimitHeaders;
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
 * {@code RateLimit-Policy}), up to {@value #MAX_REPEATED} of them, and each limit's {@code RateLimit}
 * state by the units remaining ({@link #state}). Anything else is a plain field per response, as
 * {@code addHeader} would make it.
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
  /** A bound on the limit names whose state fields are kept: at most 1024 fields each, made as first used. */
  static final int MAX_STATE_NAMES = 32;
  private static final States STATES = new States(MAX_STATE_NAMES);

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

  /**
   * The {@code RateLimit} field of one limit's state: made once per limit name and number of units
   * remaining below {@link #SMALL}, for the first seconds-to-reset seen with them; any other is a
   * plain field. Kept for at most {@value #MAX_STATE_NAMES} names.
   */
  static HttpField state(String name, long remaining, long resetSeconds) {
    StateTable table = remaining >= 0 && remaining < SMALL ? STATES.table(name) : null;
    if (table == null) {
      return plain(LimitHeader.STATE, RateLimitHeaders.state(name, remaining, resetSeconds));
    }
    return table.field(name, (int) remaining, resetSeconds);
  }

  /** The state tables, one per limit name, up to a bound. */
  static final class States {
    private final int max;
    private final Map<String, StateTable> tables = new ConcurrentHashMap<>();

    States(int max) {
      this.max = max;
    }

    /** The name's table, or null once {@code max} names have one (or for a name no encoded field may hold). */
    StateTable table(String name) {
      StateTable table = tables.get(name);
      if (table != null || tables.size() >= max || !visibleAscii(name)) {
        return table;
      }
      // two threads may both get here: one table is kept, and the bound holds give or take them
      return tables.computeIfAbsent(name, unused -> new StateTable());
    }

    int size() {
      return tables.size();
    }
  }

  /**
   * One limit's state fields, by the units remaining. For a token bucket the seconds to reset follow
   * from the units remaining, so a slot's first field is the one most responses want; a slot is
   * filled once and never replaced, so values that keep changing (a window's reset counting down)
   * cost a plain field, and never a new encoding per response.
   */
  static final class StateTable {
    /** A field and the seconds to reset it says; final fields, so safe to share through the slots' races. */
    private record Kept(long resetSeconds, HttpField field) {}

    private final Kept[] byRemaining = new Kept[SMALL];

    HttpField field(String name, int remaining, long resetSeconds) {
      Kept kept = byRemaining[remaining];
      if (kept != null && kept.resetSeconds() == resetSeconds) {
        return kept.field();
      }
      String value = RateLimitHeaders.state(name, remaining, resetSeconds);
      if (kept != null || !visibleAscii(value)) {
        return plain(LimitHeader.STATE, value);
      }
      HttpField field = preEncoded(LimitHeader.STATE, value);
      // two threads may both fill an empty slot: either one is kept, and each field says its own reset
      byRemaining[remaining] = new Kept(resetSeconds, field);
      return field;
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

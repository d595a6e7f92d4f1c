package dev.ratelimit.servlet;

import dev.ratelimit.http.CostHeader;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The response the chain writes to when a rule settles by a cost header (docs/design.md §6.1):
 * the header's values are kept for the settlement as the application sets them, and reach the
 * client only when the rule passes them. Caught as they are set, not read back at the end: a
 * response may be committed, its headers sent, long before the filter sees it again.
 *
 * <p>An application that writes the header around this wrapper (through the container's own
 * response, which {@code startAsync()} without arguments hands out) still settles its request,
 * from what the container's response holds, but its client receives the header.
 */
final class CostStatingResponse extends HttpServletResponseWrapper {
  private final List<CostHeader> headers;
  /** Each cost header's values as set, by lower-case name; set on the application's threads, read on another. */
  private final Map<String, List<String>> stated = new ConcurrentHashMap<>();

  CostStatingResponse(HttpServletResponse response, List<CostHeader> headers) {
    super(response);
    this.headers = List.copyOf(headers);
  }

  /**
   * The values the application stated in the header {@code name}: as caught here, else as the
   * container's response holds them (set around this wrapper); empty when it set none.
   */
  List<String> stated(String name) {
    List<String> values = stated.get(name.toLowerCase(Locale.ROOT));
    if (values != null) {
      return values;
    }
    Collection<String> around = ((HttpServletResponse) getResponse()).getHeaders(name);
    return around == null ? List.of() : List.copyOf(around);
  }

  /** The cost header of this name, or null for any other header. */
  private CostHeader costHeader(String name) {
    if (name != null) {
      for (CostHeader header : headers) {
        if (header.is(name)) {
          return header;
        }
      }
    }
    return null;
  }

  /** Keeps a value set ({@code add} false) or added; {@code null} removes the header. Whether it goes on to the client. */
  private boolean state(CostHeader header, String value, boolean add) {
    String key = header.name().toLowerCase(Locale.ROOT);
    if (value == null) {
      stated.remove(key);
    } else if (add) {
      stated.compute(key, (name, values) -> {
        List<String> more = values == null ? new ArrayList<>(1) : new ArrayList<>(values);
        more.add(value);
        return List.copyOf(more);
      });
    } else {
      stated.put(key, List.of(value));
    }
    return header.passed();
  }

  @Override
  public void setHeader(String name, String value) {
    CostHeader header = costHeader(name);
    if (header == null || state(header, value, false)) {
      super.setHeader(name, value);
    }
  }

  @Override
  public void addHeader(String name, String value) {
    CostHeader header = costHeader(name);
    if (header == null || state(header, value, true)) {
      super.addHeader(name, value);
    }
  }

  @Override
  public void setIntHeader(String name, int value) {
    CostHeader header = costHeader(name);
    if (header == null || state(header, Integer.toString(value), false)) {
      super.setIntHeader(name, value);
    }
  }

  @Override
  public void addIntHeader(String name, int value) {
    CostHeader header = costHeader(name);
    if (header == null || state(header, Integer.toString(value), true)) {
      super.addIntHeader(name, value);
    }
  }

  /** A date states no cost: kept as text that is not one, so that the charge stays as made. */
  @Override
  public void setDateHeader(String name, long date) {
    CostHeader header = costHeader(name);
    if (header == null || state(header, "date " + date, false)) {
      super.setDateHeader(name, date);
    }
  }

  @Override
  public void addDateHeader(String name, long date) {
    CostHeader header = costHeader(name);
    if (header == null || state(header, "date " + date, true)) {
      super.addDateHeader(name, date);
    }
  }

  @Override
  public boolean containsHeader(String name) {
    CostHeader header = costHeader(name);
    return header != null && !header.passed() ? stated.containsKey(header.name().toLowerCase(Locale.ROOT))
        : super.containsHeader(name);
  }

  @Override
  public String getHeader(String name) {
    CostHeader header = costHeader(name);
    if (header != null && !header.passed()) {
      List<String> values = stated.get(header.name().toLowerCase(Locale.ROOT));
      return values == null ? null : values.get(0);
    }
    return super.getHeader(name);
  }

  @Override
  public Collection<String> getHeaders(String name) {
    CostHeader header = costHeader(name);
    if (header != null && !header.passed()) {
      return stated.getOrDefault(header.name().toLowerCase(Locale.ROOT), List.of());
    }
    return super.getHeaders(name);
  }

  @Override
  public Collection<String> getHeaderNames() {
    Set<String> names = new LinkedHashSet<>(super.getHeaderNames());
    for (CostHeader header : headers) {
      if (!header.passed() && stated.containsKey(header.name().toLowerCase(Locale.ROOT))) {
        names.add(header.name());
      }
    }
    return names;
  }

  /** Clears the stated values with the headers (a reset of a committed response throws first, changing nothing). */
  @Override
  public void reset() {
    super.reset();
    stated.clear();
  }
}

package dev.ratelimit.webflux;

import java.util.List;
import org.springframework.http.HttpHeaders;
import org.springframework.util.MultiValueMap;

/**
 * Spring's {@link HttpHeaders} read the same way on Spring Framework 6.2 (Boot 3.5) and 7 (Boot
 * 4), docs/design.md §7.5. Framework 7's {@code HttpHeaders} is no longer a {@code MultiValueMap}:
 * its {@code get(String)} and {@code containsHeader(String)} do not exist on 6.2, whose map methods
 * ({@code get(Object)}, {@code containsKey(Object)}) 7 dropped; a library compiled against one
 * fails on the other with a {@code NoSuchMethodError} on the first request. The JVM links a call
 * when it first runs, so each branch below runs only on the line that has it.
 */
final class SpringHeaders {
  private SpringHeaders() {}

  /** Every line of the header (any case), in order; empty when there is none. */
  static List<String> values(HttpHeaders headers, String name) {
    List<String> values = (Object) headers instanceof MultiValueMap<?, ?> map ? strings(map.get(name)) : headers.get(name);
    return values == null ? List.of() : values;
  }

  /** Whether the header (any case) is there. */
  static boolean contains(HttpHeaders headers, String name) {
    return (Object) headers instanceof MultiValueMap<?, ?> map ? map.containsKey(name) : headers.containsHeader(name);
  }

  /** Takes the header (any case) out. */
  static void remove(HttpHeaders headers, String name) {
    if ((Object) headers instanceof MultiValueMap<?, ?> map) {
      map.remove(name);
    } else {
      headers.remove(name);
    }
  }

  @SuppressWarnings("unchecked") // Framework 6.2's HttpHeaders is a MultiValueMap<String, String>
  private static List<String> strings(Object values) {
    return (List<String>) values;
  }
}

package dev.ratelimit.spring;

import dev.ratelimit.limiter.Decisions;
import dev.ratelimit.limiter.NamedLimiter;
import java.util.List;

/**
 * Reports an annotated method's decisions, admitted or not, on the HTTP response of the request
 * it runs in (the rate limit headers of docs/design.md §6). Spring Boot provides one in servlet web
 * applications; without one, nothing is written.
 *
 * @since 1.0
 */
@FunctionalInterface
public interface ResponseHeaders {
  /** Writes nothing. */
  ResponseHeaders NONE = (calls, decisions) -> {};

  void write(List<NamedLimiter.Call> calls, Decisions decisions);
}

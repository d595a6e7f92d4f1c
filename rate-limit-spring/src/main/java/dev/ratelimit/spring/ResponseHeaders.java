package dev.ratelimit.spring;

import dev.ratelimit.Decisions;
import dev.ratelimit.LimitCall;
import java.util.List;

/** Writes the rate limit headers of an admitted or denied call to the current HTTP response, if any. */
interface ResponseHeaders {
  ResponseHeaders NONE = (calls, decisions) -> {};

  void write(List<LimitCall> calls, Decisions decisions);
}

package dev.ratelimit.http;

/**
 * Whether a rule applies to a request at all, beyond its pattern and methods: a front end's
 * own, such as Boot's SpEL {@code condition: "#{...}"}. A rule that does not apply is neither
 * charged nor shown in the headers.
 */
@FunctionalInterface
public interface RequestCondition {

  /** Called on the request's thread (an event loop for the reactive front ends): it must not block. */
  boolean applies(Request request);
}

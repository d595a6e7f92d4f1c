package dev.ratelimit.http;

/**
 * Which plan of its limit a rule charges a request under (docs/design.md §2.7): a front end's
 * own, such as Boot's SpEL {@code plan: "#{...}"}. {@code null}, or a plan the limit lacks, is
 * the default plan (the limiter logs an unknown one once).
 */
@FunctionalInterface
public interface RequestPlan {

  /**
   * The plan's name, or null for the default plan. Called on the request's thread (an event
   * loop for the reactive front ends): it must not block. What it throws reaches the front end;
   * a front end that wants a default for failures says so in its own implementation.
   */
  String plan(Request request);
}

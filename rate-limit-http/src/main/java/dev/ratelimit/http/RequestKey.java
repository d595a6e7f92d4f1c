package dev.ratelimit.http;

/**
 * Whose bucket a request spends from: the built-in kinds of {@link Keys} and each front end's
 * own (a servlet {@code KeyResolver}, a SpEL expression). Its {@code toString()} is the key as
 * configured ({@code header:X-Api-Key}), for messages.
 */
@FunctionalInterface
public interface RequestKey {

  /** The key of this request, or null when it has none (then the missing-key policy applies). */
  String resolve(Request request);
}

package dev.ratelimit;

/**
 * What a limit does while a remote store cannot be reached.
 *
 * @since 1.0
 */
public enum FailurePolicy {
  /** Admit every request. */
  OPEN,
  /** Deny every request (503 over HTTP). */
  CLOSED,
  /** Decide on an in-memory store until the remote store answers again. */
  LOCAL;

  /** The spelling used in specs and properties: {@code open}, {@code closed}, {@code local}. */
  public String spec() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}

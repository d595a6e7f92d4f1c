package dev.ratelimit;

/**
 * A limit spec that can't be read. The message names the spec, the bad token and what is
 * allowed, e.g. {@code unknown parameter 'burst' in "gcra rate=5 period=1s burst=3"; allowed:
 * rate, period, capacity, maxReserved, shards, failure}.
 *
 * @since 1.0
 */
public class InvalidLimitSpecException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String spec;
  private final String token;

  public InvalidLimitSpecException(String message, String spec, String token) {
    super(message);
    this.spec = spec;
    this.token = token;
  }

  /** The whole spec as given. */
  public String spec() {
    return spec;
  }

  /** The part of the spec that is wrong, or the whole spec when no single token is. */
  public String token() {
    return token;
  }
}

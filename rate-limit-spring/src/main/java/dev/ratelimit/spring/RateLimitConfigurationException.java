package dev.ratelimit.spring;

/**
 * A {@link RateLimited} annotation that can't work: an unknown limit name, an invalid SpEL
 * expression, a bad wait, a missing fallback. Thrown at startup, naming the method and the value.
 *
 * @since 1.0
 */
public class RateLimitConfigurationException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public RateLimitConfigurationException(String message) {
    super(message);
  }
}

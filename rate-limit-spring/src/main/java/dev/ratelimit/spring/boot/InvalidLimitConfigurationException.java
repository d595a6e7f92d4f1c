package dev.ratelimit.spring.boot;

/**
 * A {@code ratelimit.*} property that can't be used; the message names the property and the value.
 *
 * @since 1.0
 */
public class InvalidLimitConfigurationException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public InvalidLimitConfigurationException(String message, Throwable cause) {
    super(message, cause);
  }
}

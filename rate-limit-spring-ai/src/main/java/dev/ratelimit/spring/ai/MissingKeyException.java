package dev.ratelimit.spring.ai;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ResponseStatus;

/**
 * A chat call refused because it has no key (nobody authenticated, with the default key) and
 * the advisor's missing-key policy is {@code deny}: the model is not called. Spring MVC and
 * WebFlux answer it with 400 ({@code @ResponseStatus}, ignored where spring-web is absent). The
 * message names the limit, not the key's expression's inputs. An expected outcome: no stack
 * trace.
 */
@ResponseStatus(HttpStatus.BAD_REQUEST)
public class MissingKeyException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final String limitName;

  public MissingKeyException(String limitName) {
    super("Rate limit '" + limitName + "' needs a key for the chat call, and the call has none", null);
    this.limitName = limitName;
  }

  public String limitName() {
    return limitName;
  }

  @Override
  public synchronized Throwable fillInStackTrace() {
    return this;
  }
}

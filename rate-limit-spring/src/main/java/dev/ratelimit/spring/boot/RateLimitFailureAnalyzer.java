package dev.ratelimit.spring.boot;

import dev.ratelimit.InvalidLimitSpecException;
import dev.ratelimit.spring.RateLimitConfigurationException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

/**
 * Turns a rate limit configuration error at startup into one paragraph: a bad spec in
 * {@code ratelimit.limits}, an invalid limit name, an annotation naming an unknown limit, a bad
 * SpEL expression or wait, a missing fallback, a Spring line this project does not run on.
 *
 * @since 1.0
 */
public final class RateLimitFailureAnalyzer implements FailureAnalyzer {

  @Override
  public FailureAnalysis analyze(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof SupportedVersions.UnsupportedVersionException version) {
        return new FailureAnalysis(version.getMessage() + ".",
            "Move the application to a supported line (Spring Boot 3.5 or later), or set ratelimit.enabled=false "
                + "to leave rate limiting off.", cause);
      }
      if (cause instanceof InvalidLimitSpecException spec) {
        return new FailureAnalysis("A rate limit spec is invalid: " + spec.getMessage(),
            "Fix the spec in ratelimit.limits (syntax: KIND name=value ..., such as "
                + "'token-bucket rate=10 period=1m', or the shorthand '10/1m').", cause);
      }
      if (cause instanceof RateLimitConfigurationException annotation) {
        return new FailureAnalysis("A @RateLimited annotation can't work: " + annotation.getMessage(),
            "Fix the annotation, or define the limit it names as ratelimit.limits.<name>=<spec>.", cause);
      }
      if (cause instanceof InvalidLimitConfigurationException config) {
        return new FailureAnalysis("The rate limit configuration is invalid: " + config.getMessage(),
            "Fix the property named above. Limits are ratelimit.limits.<name>=<spec>, with kebab-case names "
                + "and specs such as 'token-bucket rate=10 period=1m' or '10/1m'.", cause);
      }
    }
    return null;
  }
}

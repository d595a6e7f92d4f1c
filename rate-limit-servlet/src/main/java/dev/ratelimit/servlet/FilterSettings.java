package dev.ratelimit.servlet;

import dev.ratelimit.http.RateLimitHeaders;
import dev.ratelimit.http.RuleSettings;
import dev.ratelimit.http.Rules;
import dev.ratelimit.http.builder.MissingKey;
import dev.ratelimit.limiter.RateLimiter;

/**
 * Everything a started filter needs, settled and immutable: what {@link FilterSetup} makes of
 * a builder's calls or a {@code web.xml}'s init-params.
 */
record FilterSettings(RuleSettings decided, RejectionHandler rejection) {

  RateLimiter limiter() {
    return decided.limiter();
  }

  /** Whether the filter made the limiter, and so closes it on destroy. */
  boolean ownsLimiter() {
    return decided.ownsLimiter();
  }

  Rules rules() {
    return decided.rules();
  }

  RateLimitHeaders headers() {
    return decided.headers();
  }

  MissingKey missingKey() {
    return decided.missingKey();
  }
}

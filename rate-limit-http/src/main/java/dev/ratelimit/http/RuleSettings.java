package dev.ratelimit.http;

import dev.ratelimit.http.builder.MissingKey;
import dev.ratelimit.limiter.RateLimiter;

/**
 * Everything a started front end needs to decide, settled and immutable: what {@link RuleSetup}
 * makes of its configuration.
 *
 * @param ownsLimiter whether the front end made the limiter, and so closes it when stopped
 */
public record RuleSettings(RateLimiter limiter, boolean ownsLimiter, Rules rules, RateLimitHeaders headers,
    MissingKey missingKey) {}

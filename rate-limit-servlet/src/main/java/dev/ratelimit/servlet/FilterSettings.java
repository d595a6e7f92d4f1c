package dev.ratelimit.servlet;

import dev.ratelimit.RateLimiter;

/**
 * Everything a started filter needs, settled and immutable: what {@link FilterSetup} makes of
 * a builder's calls or a {@code web.xml}'s init-params.
 *
 * @param ownsLimiter whether the filter made the limiter, and so closes it on destroy
 */
record FilterSettings(RateLimiter limiter, boolean ownsLimiter, Rules rules, Headers headers, MissingKey missingKey,
    RejectionHandler rejection) {}

package dev.ratelimit.limiter;

/**
 * One of a limit's heaviest keys over its recent windows ({@link RateLimiter#topKeys}), as
 * counted by a heavy-hitters sketch (docs/design.md §10.2): each number is counted since the key
 * entered the sketch, so it is never above the truth and short of it by at most
 * {@code uncounted}.
 *
 * @param key the key as the limiter bounded it (a key longer than 256 UTF-8 bytes is its
 *     {@code sha256:} digest)
 * @param units units admitted (taken, or reserved)
 * @param denied units refused (for a limit in {@code mode=shadow}: the units it would have
 *     refused)
 * @param uncounted the most units, admitted or refused, the key may have had in these windows
 *     that {@code units} and {@code denied} leave out; 0 while the sketch counts every key
 */
public record TopKey(String key, double units, double denied, double uncounted) {}

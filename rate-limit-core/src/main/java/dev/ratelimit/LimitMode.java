package dev.ratelimit;

/**
 * Whether a limit denies ({@code mode=enforce}, the default) or only watches
 * ({@code mode=shadow}): a shadow limit is computed and charged exactly as if enforced, but
 * every caller is admitted; a would-be denial goes to the {@link DecisionListener} (its
 * {@link DecisionListener#onDecision(String, Decision, FailurePolicy, boolean) onDecision} with
 * {@code shadowDenied}) and to the log, at most once per limit and minute.
 * Lets a limit be rolled out, watched, then switched to enforce with
 * {@link dev.ratelimit.limiter.NamedLimiter#replace(String)}, keeping every key's state.
 *
 * @since 1.0
 */
public enum LimitMode {
  ENFORCE,
  SHADOW;

  /** The spelling used in specs: {@code enforce}, {@code shadow}. */
  public String spec() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}

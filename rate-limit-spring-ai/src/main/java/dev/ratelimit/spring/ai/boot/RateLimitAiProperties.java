package dev.ratelimit.spring.ai.boot;

import dev.ratelimit.spring.ai.RateLimitAdvisor;
import dev.ratelimit.http.builder.MissingKey;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * An LLM token budget on every ChatClient built from the auto-configured ChatClient.Builder
 * (ratelimit.ai.*, docs/design.md §7.6): the advisor is added when limit names one of
 * ratelimit.limits. Descriptions here are plain text: the configuration processor copies them
 * into the metadata that IDEs show.
 *
 * <pre>
 * ratelimit.limits.llm-tokens=token-bucket rate=100000 period=1h
 * ratelimit.ai.limit=llm-tokens
 * </pre>
 */
@ConfigurationProperties("ratelimit.ai")
public class RateLimitAiProperties {

  /** Whether the advisor is added to ChatClients (when limit is set): false turns it off. */
  private boolean enabled = true;

  /**
   * The limit a chat call's tokens are charged to: a name in ratelimit.limits, e.g. llm-tokens.
   * Unset: no advisor. A name that is not a limit stops the application.
   */
  private String limit;

  /**
   * The key each call is charged to: SpEL over #principal (the authenticated user's name, null
   * when nobody is), #prompt (the Spring AI Prompt) and #context (the call's advisor context);
   * null is a missing key (missing-key). Quote it in YAML, where # starts a comment.
   */
  private String key = "#principal";

  /**
   * The tokens charged before the model runs, settled with the answer's total tokens afterwards:
   * SpEL over #prompt, #context and #principal, whose root is the call (defaultEstimate(),
   * promptCharacters(), maxTokens()); a number, rounded up. Unset: defaultEstimate(), the prompt's
   * characters / 4 rounded up, plus the call's maxTokens option when set.
   */
  private String estimate;

  /**
   * A call without a key (nobody authenticated): global (every such call shares the limit's
   * global key), skip (not limited) or deny (refused with 400, the model not called).
   */
  private MissingKey missingKey = MissingKey.GLOBAL;

  /**
   * The advisor's order among the ChatClient's advisors. Default: before Spring AI's chat memory
   * and tool calling advisors (Ordered.HIGHEST_PRECEDENCE + 100).
   */
  private int order = RateLimitAdvisor.DEFAULT_ORDER;

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public String getLimit() {
    return limit;
  }

  public void setLimit(String limit) {
    this.limit = limit;
  }

  public String getKey() {
    return key;
  }

  public void setKey(String key) {
    this.key = key;
  }

  public String getEstimate() {
    return estimate;
  }

  public void setEstimate(String estimate) {
    this.estimate = estimate;
  }

  public MissingKey getMissingKey() {
    return missingKey;
  }

  public void setMissingKey(MissingKey missingKey) {
    this.missingKey = missingKey;
  }

  public int getOrder() {
    return order;
  }

  public void setOrder(int order) {
    this.order = order;
  }
}

package dev.ratelimit.spring.ai;

import java.util.Map;
import java.util.Objects;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;

/**
 * One chat call as {@link RateLimitAdvisor} sees it before the model runs: what its key and its
 * estimate are computed from.
 *
 * @param prompt the prompt as the advisors after this one get it: the messages and the options
 *     (the model's defaults with the call's own)
 * @param context the advisor context of the call ({@code .advisors(a -> a.param("tenant", id))})
 * @param principal the authenticated user's name, or {@code null} when nobody (or an anonymous
 *     user) is authenticated (docs/design.md §7.3, {@code #principal})
 */
public record ChatCall(Prompt prompt, Map<String, Object> context, String principal) {

  public ChatCall {
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(context, "context");
  }

  /**
   * The default estimate of the tokens the call will use (docs/design.md §7.6): the prompt's
   * characters divided by four, rounded up, plus the answer's {@code maxTokens} option when it is
   * set and positive. A rough count of English text; the settlement corrects it with what the
   * model reports.
   */
  public double defaultEstimate() {
    return Math.ceil(promptCharacters() / 4.0) + maxTokens();
  }

  /** The characters of the prompt's messages' text, every message (system, history, user). */
  public long promptCharacters() {
    long characters = 0;
    for (Message message : prompt.getInstructions()) {
      String text = message.getText();
      characters += text == null ? 0 : text.length();
    }
    return characters;
  }

  /** The {@code maxTokens} option of the call, or 0 when it has none (or one that is not positive). */
  public long maxTokens() {
    ChatOptions options = prompt.getOptions();
    Integer maxTokens = options == null ? null : options.getMaxTokens();
    return maxTokens == null || maxTokens < 0 ? 0 : maxTokens;
  }
}

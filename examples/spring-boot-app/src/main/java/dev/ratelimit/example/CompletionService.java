package dev.ratelimit.example;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.stereotype.Service;

/**
 * An LLM completion through Spring AI's {@code ChatClient}, built from the auto-configured
 * builder, which carries the rate-limit advisor ({@code ratelimit.ai.limit: llm-tokens}): each call
 * is charged its estimate (the prompt's characters / 4, plus {@code maxTokens}) to the
 * authenticated user's budget before the model runs, and settled with the tokens the model
 * reports. An estimate the budget could never admit (a huge prompt) is a 400; a spent budget a 429.
 */
@Service
public class CompletionService {
  /** The largest answer a caller may ask for. */
  public static final int MAX_TOKENS = 500;

  private final ChatClient chat;

  public CompletionService(ChatClient.Builder chat) {
    this.chat = chat.build();
  }

  public String complete(String prompt, int maxTokens) {
    return chat.prompt().user(prompt).options(ChatOptions.builder().maxTokens(maxTokens)).call().content();
  }
}

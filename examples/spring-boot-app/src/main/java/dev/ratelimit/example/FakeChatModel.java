package dev.ratelimit.example;

import java.util.List;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.metadata.DefaultUsage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.stereotype.Component;

/**
 * The demo's stand-in for a model provider (none is reachable from the demo): it answers at once
 * and reports its token usage as a provider does, in the answer's metadata. Prompt tokens are the
 * prompt's characters / 4 rounded up; the answer uses half the {@code maxTokens} it is allowed
 * (25 without a limit). To use a real model, remove this class and add the provider's starter
 * (README).
 */
@Component
public class FakeChatModel implements ChatModel {

  @Override
  public ChatResponse call(Prompt prompt) {
    int characters = prompt.getContents().length();
    Integer maxTokens = prompt.getOptions() == null ? null : prompt.getOptions().getMaxTokens();
    int promptTokens = (characters + 3) / 4;
    int answerTokens = maxTokens == null ? 25 : maxTokens / 2;
    AssistantMessage answer = new AssistantMessage("completion of " + characters + " characters, " + answerTokens
        + " tokens");
    return new ChatResponse(List.of(new Generation(answer)),
        ChatResponseMetadata.builder().usage(new DefaultUsage(promptTokens, answerTokens)).build());
  }

  /** Options that carry tools and maxTokens, as a provider's do. */
  @Override
  public ChatOptions getOptions() {
    return ToolCallingChatOptions.builder().build();
  }
}

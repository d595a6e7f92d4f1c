package dev.ratelimit.spring.ai;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;

/** The default estimate: every message's characters / 4, rounded up, plus a positive maxTokens. */
class ChatCallTest {

  private static ChatCall call(ChatOptions options) {
    return new ChatCall(new Prompt(List.of(new SystemMessage("be brief"), new AssistantMessage("earlier answer"),
        new UserMessage("hello world!")), options), Map.of(), null);
  }

  @Test
  void defaultEstimate_countsEveryMessage_andTheMaxTokensOption() {
    assertThat(call(null).promptCharacters()).isEqualTo(8 + 14 + 12);
    assertThat(call(null).defaultEstimate()).isEqualTo(9); // 34 / 4 rounded up
    assertThat(call(ChatOptions.builder().maxTokens(200).build()).defaultEstimate()).isEqualTo(209);
  }

  @Test
  void defaultEstimate_ignoresAMaxTokensThatIsNotPositive() {
    assertThat(call(ChatOptions.builder().maxTokens(-5000).build()).defaultEstimate()).isEqualTo(9);
    assertThat(call(ChatOptions.builder().build()).maxTokens()).isZero();
  }

  @Test
  void defaultEstimate_ofAnEmptyPrompt_isZero() {
    assertThat(new ChatCall(new Prompt(List.of()), Map.of(), null).defaultEstimate()).isZero();
  }
}

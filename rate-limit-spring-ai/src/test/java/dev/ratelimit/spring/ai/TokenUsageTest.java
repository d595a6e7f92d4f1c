package dev.ratelimit.spring.ai;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.metadata.DefaultUsage;
import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;

/** What counts as a model's report of its tokens. */
class TokenUsageTest {

  private static ChatClientResponse answer(Usage usage) {
    return new ChatClientResponse(new ChatResponse(List.of(new Generation(new AssistantMessage("hi"))),
        ChatResponseMetadata.builder().usage(usage).build()), Map.of());
  }

  @Test
  void total_isTheReportedTotal() {
    assertThat(TokenUsage.total(answer(new DefaultUsage(10, 27)))).isEqualTo(37);
    assertThat(TokenUsage.total(answer(new DefaultUsage(0, 0, Integer.MAX_VALUE)))).isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void total_ofNoAnswer_noMetadataUsage_orNoPositiveTotal_isNone() {
    assertThat(TokenUsage.total(null)).isEqualTo(TokenUsage.NONE);
    assertThat(TokenUsage.total(new ChatClientResponse(null, Map.of()))).isEqualTo(TokenUsage.NONE);
    assertThat(TokenUsage.total(new ChatClientResponse(
        new ChatResponse(List.of(new Generation(new AssistantMessage("hi")))), Map.of()))).isEqualTo(TokenUsage.NONE);
    assertThat(TokenUsage.total(answer(new DefaultUsage(0, 0, 0)))).isEqualTo(TokenUsage.NONE);
    assertThat(TokenUsage.total(answer(new DefaultUsage(3, 4, -1)))).isEqualTo(TokenUsage.NONE);
  }

  @Test
  void total_ofAUsageThatFailsToRead_isNone() {
    Usage failing = new Usage() {
      @Override
      public Integer getPromptTokens() {
        throw new IllegalStateException("no prompt tokens");
      }

      @Override
      public Integer getCompletionTokens() {
        return null;
      }

      @Override
      public Object getNativeUsage() {
        return null;
      }
    };
    assertThat(TokenUsage.total(answer(failing))).isEqualTo(TokenUsage.NONE);
  }

  @Test
  void last_keepsTheLastChunkThatReports() {
    TokenUsage.Last last = new TokenUsage.Last();
    assertThat(last.total()).isEqualTo(TokenUsage.NONE);
    last.see(answer(new DefaultUsage(5, 7)));
    last.see(answer(new DefaultUsage(0, 0, 0)));
    assertThat(last.total()).isEqualTo(12);
    last.see(answer(new DefaultUsage(5, 30)));
    assertThat(last.total()).isEqualTo(35);
  }
}

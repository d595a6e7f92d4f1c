package dev.ratelimit.spring.ai;

import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.chat.model.ChatResponse;

/**
 * The tokens an answer says it used: its metadata's total tokens. A model's report is outside
 * input to the limiter: no usage, a total of 0 or less, or a usage that throws when read is no
 * report at all (the call stays charged at its estimate); a huge total is a report, and the
 * settlement bounds what it takes (docs/design.md §2.4, the debt bound).
 */
final class TokenUsage {
  /** No report. */
  static final long NONE = -1;

  private TokenUsage() {}

  /** The answer's total tokens, or {@link #NONE}. */
  static long total(ChatClientResponse response) {
    try {
      ChatResponse answer = response == null ? null : response.chatResponse();
      ChatResponseMetadata metadata = answer == null ? null : answer.getMetadata();
      Usage usage = metadata == null ? null : metadata.getUsage();
      Integer total = usage == null ? null : usage.getTotalTokens();
      return total == null || total <= 0 ? NONE : total;
    } catch (RuntimeException e) {
      return NONE; // a provider's own Usage that fails when read reports nothing
    }
  }

  /**
   * The last report of a stream: providers send the usage with the last chunk (OpenAI), or a
   * running total on several (Anthropic); either way the last chunk that carries one has the
   * call's total, as Spring AI's own aggregation reads it. One per subscription.
   */
  static final class Last {
    private volatile long total = NONE;

    void see(ChatClientResponse chunk) {
      long reported = TokenUsage.total(chunk);
      if (reported != NONE) {
        total = reported;
      }
    }

    long total() {
      return total;
    }
  }
}

package dev.ratelimit.spring.ai;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.MessageType;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.metadata.DefaultUsage;
import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import reactor.core.publisher.Flux;

/**
 * A Spring AI {@link ChatModel} for tests: answers with a usage the test sets (deterministic, or
 * hostile: huge, negative, absent), streams the chunks the test sets with that usage on the last,
 * and counts how often it was called and streamed. A stream can end by completing, failing after
 * its chunks, or hanging there until its subscriber cancels. Asked to, it first calls a tool
 * ({@link #TOOL}) in a round of its own, as a real model does, before it answers.
 */
public final class ScriptedChatModel implements ChatModel {
  /** How a stream ends after its chunks. */
  public enum End { COMPLETE, FAIL, HANG }

  /** The tool the model calls when {@link #callsToolFirst} is set: the application must define it. */
  public static final String TOOL = "clock";

  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicInteger streams = new AtomicInteger();
  private volatile Usage usage = usage(37);
  private volatile List<String> chunks = List.of("Hel", "lo", "!");
  private volatile boolean usageOnEveryChunk;
  private volatile End end = End.COMPLETE;
  private volatile Usage toolRound;
  private volatile CountDownLatch cancelled = new CountDownLatch(1);
  private volatile CountDownLatch firstChunkSent = new CountDownLatch(1);

  /** A usage of {@code total} tokens (a fifth of them prompt tokens, as a model would split them). */
  public static Usage usage(int total) {
    return new DefaultUsage(total / 5, total - total / 5, total);
  }

  /** Back to the defaults: 37 tokens, three chunks, completing; the counts at 0. */
  public void reset() {
    calls.set(0);
    streams.set(0);
    usage = usage(37);
    chunks = List.of("Hel", "lo", "!");
    usageOnEveryChunk = false;
    end = End.COMPLETE;
    toolRound = null;
    cancelled = new CountDownLatch(1);
    firstChunkSent = new CountDownLatch(1);
  }

  /** The usage every answer reports from now on; {@code null}: none. */
  public ScriptedChatModel reports(Usage usage) {
    this.usage = usage;
    return this;
  }

  public ScriptedChatModel streams(List<String> chunks, End end) {
    this.chunks = List.copyOf(chunks);
    this.end = end;
    return this;
  }

  /** Each chunk carries a running total (as some providers send it), the last the whole usage. */
  public ScriptedChatModel usageOnEveryChunk() {
    this.usageOnEveryChunk = true;
    return this;
  }

  /** Each answer is preceded by a round that calls {@link #TOOL}, reporting {@code usage}. */
  public ScriptedChatModel callsToolFirst(Usage usage) {
    this.toolRound = usage;
    return this;
  }

  public int calls() {
    return calls.get();
  }

  public int streams() {
    return streams.get();
  }

  /** Counts down when a stream's subscriber cancels. */
  public CountDownLatch cancelled() {
    return cancelled;
  }

  /** Counts down when a stream has sent its first chunk. */
  public CountDownLatch firstChunkSent() {
    return firstChunkSent;
  }

  /** Options that carry tools, as a real model's do: Spring AI's tool-calling advisor then runs. */
  @Override
  public ChatOptions getOptions() {
    return ToolCallingChatOptions.builder().build();
  }

  @Override
  public ChatResponse call(Prompt prompt) {
    calls.incrementAndGet();
    if (toolCallDue(prompt)) {
      return toolCall(toolRound);
    }
    return answer("echo: " + prompt.getContents().length() + " characters", usage);
  }

  @Override
  public Flux<ChatResponse> stream(Prompt prompt) {
    if (toolCallDue(prompt)) {
      return Flux.just(toolCall(toolRound)).doOnSubscribe(subscription -> streams.incrementAndGet());
    }
    List<String> texts = chunks;
    Usage last = usage;
    End how = end;
    CountDownLatch cancel = cancelled;
    CountDownLatch first = firstChunkSent;
    Flux<ChatResponse> sent = Flux.range(0, texts.size()).map(i -> answer(texts.get(i),
        i == texts.size() - 1 ? last : usageOnEveryChunk && last != null ? usage((i + 1) * last.getTotalTokens() / texts.size())
            : null))
        .doOnNext(chunk -> first.countDown());
    Flux<ChatResponse> ended = switch (how) {
      case COMPLETE -> sent;
      case FAIL -> sent.concatWith(Flux.error(new IllegalStateException("the model failed midway")));
      case HANG -> sent.concatWith(Flux.never());
    };
    return ended.doOnSubscribe(subscription -> streams.incrementAndGet()).doOnCancel(cancel::countDown);
  }

  private boolean toolCallDue(Prompt prompt) {
    return toolRound != null
        && prompt.getInstructions().stream().noneMatch(message -> message.getMessageType() == MessageType.TOOL);
  }

  private static ChatResponse toolCall(Usage usage) {
    AssistantMessage call = AssistantMessage.builder()
        .toolCalls(List.of(new AssistantMessage.ToolCall("call-1", "function", TOOL, "{}")))
        .build();
    return new ChatResponse(List.of(new Generation(call)), ChatResponseMetadata.builder().usage(usage).build());
  }

  private static ChatResponse answer(String text, Usage usage) {
    ChatResponseMetadata.Builder metadata = ChatResponseMetadata.builder();
    if (usage != null) {
      metadata.usage(usage);
    }
    return new ChatResponse(List.of(new Generation(new AssistantMessage(text))), metadata.build());
  }
}

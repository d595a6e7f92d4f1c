package dev.ratelimit.example;

import dev.ratelimit.spring.RateLimited;
import org.springframework.stereotype.Service;

/**
 * An "LLM completion": a call costs the tokens it is estimated to use (about four characters a
 * token, prompt and answer), charged to the authenticated user's "llm-tokens" budget before it
 * runs. A count the budget could never admit (a huge prompt) is a 400.
 */
@Service
public class CompletionService {
  /** The largest answer a caller may ask for. */
  public static final int MAX_TOKENS = 500;

  @RateLimited(name = "llm-tokens", key = "#principal", count = "#prompt.length() / 4 + #maxTokens")
  public String complete(String prompt, int maxTokens) {
    return "completion of " + prompt.length() + " characters, at most " + maxTokens + " tokens";
  }
}
